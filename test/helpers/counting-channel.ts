/** A local channel that runs no session but counts the sessions it is asked for. */
import { type LocalChannelServer, listenLocalChannel } from '../../main/gateway/local-channel';

export async function countingLocalChannel(
  wardenHome: string,
): Promise<{ channel: LocalChannelServer; sessions: () => number }> {
  let sessions = 0;
  const channel = await listenLocalChannel(
    wardenHome,
    () => {
      sessions++;
      return Promise.resolve(undefined);
    },
    1 << 20,
  );
  return { channel, sessions: () => sessions };
}
