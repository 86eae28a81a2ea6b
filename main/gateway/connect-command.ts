/**
 * `warden connect NAME`: the command an AI client's config points at. With a core running (the
 * app or `warden serve`), the session joins it so its grants and approvals show in the UI;
 * otherwise this process runs its own core for the session.
 */
import { type Socket, connect } from 'node:net';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveWardenHome } from '../config/warden-home';
import { type CliIo, UsageError, reportUsage } from '../cli/cli-io';
import { showUntrusted } from '../../app/text/untrusted-text';
import { localChannelPath, untrustedChannel } from './local-channel-path';

export const CONNECT_HELP = `Usage: warden connect NAME [--client LABEL] [--max-message-bytes N]

Speaks MCP on stdin/stdout for an AI client and relays it to a new sandboxed instance of NAME.
`;

export interface ConnectStreams {
  stdin: NodeJS.ReadableStream & import('node:stream').Readable;
  stdout: NodeJS.WritableStream & import('node:stream').Writable;
}

/** Runs `warden connect`; resolves when the client's session ends. */
export async function runConnectCommand(
  args: string[],
  io: CliIo,
  streams?: ConnectStreams,
): Promise<number> {
  let name: string;
  let client: string;
  let maxMessageBytes: number | undefined;
  try {
    const parsed = parseArgs({
      args,
      options: {
        client: { type: 'string' },
        'max-message-bytes': { type: 'string' },
        help: { type: 'boolean' },
      },
      allowPositionals: true,
    });
    if (parsed.values.help) {
      io.stdout(CONNECT_HELP);
      return 0;
    }
    if (parsed.positionals.length !== 1)
      throw new UsageError('connect: expected exactly one server NAME');
    name = parsed.positionals[0]!;
    client = parsed.values.client ?? 'stdio';
    const max = parsed.values['max-message-bytes'];
    if (max !== undefined) {
      if (!/^[1-9][0-9]*$/.test(max))
        throw new UsageError(
          `--max-message-bytes: expected a positive whole number of bytes, got "${max}"`,
        );
      maxMessageBytes = Number(max);
    }
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    return reportUsage(io, new UsageError((error as Error).message.split('\n')[0]!));
  }

  const home = resolveWardenHome();
  const path = localChannelPath(home);
  // A socket someone else could have put there would read the client's messages and answer in
  // the core's place: refused, never used (and no core of this process starts beside it).
  const untrusted = untrustedChannel(path);
  if (untrusted !== undefined) {
    io.stderr(
      `warden: ${showUntrusted(`refusing to talk to the Warden local channel: ${untrusted}; remove ${dirname(path)} if no Warden of yours runs`)}\n`,
    );
    return 1;
  }
  const channel = await openChannel(path);
  // This process's stdin is first touched once the core has the session's first line.
  const streamsOf = () => streams ?? { stdin: process.stdin, stdout: process.stdout };
  if (channel) return joinRunningCore(channel, name, client, home, io, streamsOf);

  // Only a session without a running core pays for loading and opening one. The server is
  // launched first, with the least code loaded, so that its start-up overlaps with loading the
  // core (on another CPU); see early-launch.ts for what this launch covers.
  const { launchEarly } = await import('../core/early-launch');
  const early = await launchEarly({ wardenHome: home, name });
  const session = { name, client, home, io, streams: streamsOf(), maxMessageBytes };
  try {
    const { runStandalone } = await import('./connect-standalone');
    return await runStandalone(session, early);
  } catch (error) {
    await early?.discard();
    throw error;
  }
}

/** The local channel of the running core, connected; undefined when no core answers there. */
function openChannel(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const refused = () => resolve(undefined);
    socket.once('error', refused);
    socket.once('connect', () => {
      socket.off('error', refused);
      resolve(socket);
    });
  });
}

function joinRunningCore(
  socket: Socket,
  server: string,
  client: string,
  home: string,
  io: CliIo,
  streamsOf: () => ConnectStreams,
): Promise<number> {
  return new Promise((resolve) => {
    let answered = false;
    let buffer = Buffer.alloc(0);
    socket.write(`${JSON.stringify({ server, client })}\n`);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const nl = buffer.indexOf(0x0a);
      if (nl < 0) return;
      socket.off('data', onData);
      const answer = JSON.parse(buffer.subarray(0, nl).toString('utf8')) as {
        ok: boolean;
        error?: string;
      };
      if (!answer.ok) {
        const refusal = answer.error ?? 'the running Warden refused the session';
        // The session ends when the message is out, not when the socket closes.
        socket.removeAllListeners('close');
        socket.destroy();
        void refused(refusal, server, home).then((message) => {
          // The client logs it: a refusal may name what the server's policy or launch said.
          io.stderr(`warden: ${showUntrusted(message)}\n`);
          resolve(1);
        });
        return;
      }
      answered = true;
      const streams = streamsOf();
      const rest = buffer.subarray(nl + 1);
      if (rest.length > 0) streams.stdout.write(rest);
      socket.pipe(streams.stdout, { end: false });
      streams.stdin.pipe(socket);
    };
    socket.on('data', onData);
    socket.once('error', (error) => {
      io.stderr(`warden: lost the running Warden: ${error.message}\n`);
      resolve(1);
    });
    socket.once('close', () => {
      // The session is over (its end ends the socket): the client's input is let go, so that
      // this process exits and the client sees its server gone, as it would see a bare one exit.
      if (answered) streamsOf().stdin.destroy();
      resolve(answered ? 0 : 1);
    });
  });
}

/** What to print for a session the running core refused (loaded only then). */
async function refused(refusal: string, server: string, home: string): Promise<string> {
  if (!refusal.startsWith('no server named')) return refusal;
  const { noServerMessage } = await import('../cli/state-folder');
  return noServerMessage(server, home);
}
