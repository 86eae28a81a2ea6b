/**
 * A standalone `warden connect` session run in process (`runStandalone`) on in-memory streams,
 * for tests that drive it as a client would and read what it wrote to stderr.
 */
import { PassThrough } from 'node:stream';
import type { EarlyLaunch } from '../../main/core/early-launch';
import { runStandalone } from '../../main/gateway/connect-standalone';

/** Starts a session of server `name` in `home` on `early`; `ran` settles with its exit status. */
export function startStandalone(name: string, home: string, early: EarlyLaunch | undefined) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const errors: string[] = [];
  const io = { stdout: () => undefined, stderr: (t: string) => void errors.push(t) };
  const ran = runStandalone(
    { name, client: 'test', home, io, streams: { stdin, stdout }, maxMessageBytes: undefined },
    early,
  );
  return { stdin, stdout, errors, ran };
}
