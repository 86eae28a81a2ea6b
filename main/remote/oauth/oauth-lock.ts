/**
 * The locks this user's Warden processes share over one server's OAuth sign-in (the app, `warden
 * serve` and standalone `warden connect` sessions may all hold it): one for the refresh, since a
 * refresh token is good for one use, and one for each change to the stored record, which is read,
 * changed and written whole. Lock files in the state folder's `run` (core-lock.ts's
 * `takeLockFile`: written whole, a holder that is gone taken over).
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Result, err } from '../../../app/result';
import { type CoreLock, type LockOwner, takeLockFile } from '../../core/core-lock';

/** The lock file of `serverName`'s refresh or record in `lockDir`. */
export function oauthLockPath(
  lockDir: string,
  kind: 'refresh' | 'record',
  serverName: string,
): string {
  const name = createHash('sha256').update(serverName).digest('hex').slice(0, 32);
  return join(lockDir, `oauth-${kind}-${name}.lock`);
}

/** Takes the lock at `path` once it is free, waiting `waitMs` at most; else the live holder. */
export async function waitForLock(
  path: string,
  what: string,
  waitMs: number,
): Promise<Result<CoreLock, LockOwner>> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const taken = await takeLockFile(path, what);
    if (taken.ok || Date.now() >= deadline) return taken.ok ? taken : err(taken.error);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
