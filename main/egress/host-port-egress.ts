/**
 * Egress where the sandbox has no private network namespace to put the init in (macOS Seatbelt):
 * the same HTTP/SOCKS5 proxy and multiplexed channel run in Warden itself, on a loopback port of
 * the host reserved for one instance, and the sandbox profile lets the server reach only that
 * port. Decisions, grants and audit are the broker's, as on Linux.
 *
 * Weaker than fd 3: another local process that finds the port can use the instance's grants
 * (its connections are still decided by the same policy and recorded against the instance).
 * Node servers get the same fetch preload as on Linux, readable to them alone through the profile.
 * The port asks for credentials made for this instance (in its proxy URLs): other users, and
 * local programs that only find the port, get 407 or a SOCKS5 login failure and open nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { type Result, ok } from '../../app/result';
import { MuxSession } from '../sandbox-init/mux-session';
import { createProxyServer } from '../sandbox-init/proxy-server';
import { proxyEnv } from './proxy-env';
import {
  type Egress,
  type EgressSetupError,
  type StartEgressOptions,
  startEgress,
} from './start-egress';

/** Two connected in-memory streams: what one writes, the other reads. */
export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (peer: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        peer().push(chunk);
        done();
      },
      final(done) {
        peer().push(null);
        done();
      },
    });
  ends.push(
    make(() => ends[1]!),
    make(() => ends[0]!),
  );
  return [ends[0]!, ends[1]!];
}

/** Egress for one instance through a proxy on 127.0.0.1:`egressPort` of the host. */
export async function startHostPortEgress(
  opts: Omit<StartEgressOptions, 'proxyPort'>,
): Promise<Result<Egress, EgressSetupError>> {
  const started = startEgress(opts);
  if (!started.ok || opts.network.mode === 'none') return started;
  const [proxySide, brokerSide] = duplexPair();
  started.value.attach(brokerSide);
  const session = new MuxSession(proxySide, { role: 'sandbox' });
  const credentials = { user: 'warden', password: randomBytes(24).toString('base64url') };
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(`${credentials.user}:${credentials.password}`);
  const proxy = createProxyServer(session, {
    authorize: (user, password) => timingSafeEqual(digest(`${user}:${password}`), expected),
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', () => resolve());
  });
  const egressPort = (proxy.address() as AddressInfo).port;
  // Node servers load the fetch preload from Warden's own files: the profile lets them read it.
  const preload = opts.runtime.preloadScript;
  return ok({
    context: { extraFds: 0, readableFiles: [preload], egressPort },
    env: proxyEnv(egressPort, preload, '', credentials),
    attach: () => undefined,
    close: async () => {
      proxy.close();
      session.close();
      await started.value.close();
    },
  });
}
