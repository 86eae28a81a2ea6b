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
import type { Result } from '../../../app/result';
import { type CoreLock, type LockOwner, waitForLockFile } from '../../core/core-lock';
import { OAuthFlowError } from './oauth-errors';

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
async function waitForLock(
  path: string,
  what: string,
  waitMs: number,
): Promise<Result<CoreLock, LockOwner>> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  return waitForLockFile(path, what, waitMs);
}

/**
 * Takes `serverName`'s refresh or record lock in `lockDir`, waiting `waitMs` at most; a lock a
 * live process holds longer fails with what to do (a refresh as `refresh-failed`, a change to the
 * record as `store`).
 */
export async function takeOAuthLock(
  lockDir: string,
  kind: 'refresh' | 'record',
  serverName: string,
  waitMs: number,
): Promise<CoreLock> {
  const path = oauthLockPath(lockDir, kind, serverName);
  const taken = await waitForLock(path, `the OAuth ${kind} of ${serverName}`, waitMs);
  if (taken.ok) return taken.value;
  const holder = `another Warden process (PID ${taken.error.pid})`;
  throw new OAuthFlowError({
    kind: kind === 'refresh' ? 'refresh-failed' : 'store',
    message:
      kind === 'refresh'
        ? `${serverName}: ${holder} has been refreshing the sign-in for ${waitMs / 1000} s`
        : `${serverName}: ${holder} holds the stored sign-in`,
    remedy: `retry; if it goes on, stop that process, or delete ${path} if it is not Warden`,
  });
}
