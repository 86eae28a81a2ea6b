/**
 * Egress where the sandbox has no private network namespace to put the init in (macOS Seatbelt):
 * the same HTTP/SOCKS5 proxy and broker as on Linux run in Warden, on a loopback port of the host
 * reserved for one instance, and the sandbox profile lets the server reach only that port.
 *
 * Weaker than Linux, where the port is on the sandbox's own loopback: another local process that
 * finds the port can use the instance's grants (its connections are still decided by the same
 * policy and recorded against the instance). Node servers get the same fetch preload as on Linux,
 * readable to them alone through the profile. The port asks for credentials made for this instance
 * (in its proxy URLs): other users, and local programs that only find the port, get 407 or a SOCKS5
 * login failure and open nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type Result, ok } from '../../app/result';
import { proxyEnv } from './proxy-env';
import {
  type Egress,
  type EgressSetupError,
  type StartEgressOptions,
  instanceProxy,
  noEgress,
} from './start-egress';

/** Egress for one instance through a proxy on 127.0.0.1:`egressPort` of the host. */
export async function startHostPortEgress(
  opts: Omit<StartEgressOptions, 'proxyPort'>,
): Promise<Result<Egress, EgressSetupError>> {
  const credentials = { user: 'warden', password: randomBytes(24).toString('base64url') };
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(`${credentials.user}:${credentials.password}`);
  const made = instanceProxy(opts, (user, password) =>
    timingSafeEqual(digest(`${user}:${password}`), expected),
  );
  if (!made.ok) return made;
  if (!made.value) return ok(noEgress());
  const { proxy, close } = made.value;
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', () => resolve());
  });
  const egressPort = (proxy.address() as AddressInfo).port;
  // Node servers load the fetch preload from Warden's own files: the profile lets them read it.
  const preload = opts.runtime.preloadScript;
  return ok({
    context: { extraFds: 0, readableFiles: [preload], egressPort },
    env: proxyEnv(egressPort, { preloadScript: preload, credentials }),
    attach: () => undefined,
    close,
  });
}
