/**
 * One serving core (the app or `warden serve`) per state folder: `$WARDEN_HOME/run/core.lock`
 * holds the PID of the core that owns the folder. A second one is refused with that PID; a lock
 * whose process is gone is stale and taken over. Two cores on one folder would fight over the
 * gateway port, the local channel and the audit chain.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile, link, chmod } from 'node:fs/promises';
import { unlinkSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Result, err, ok } from '../../app/result';

export interface LockOwner {
  pid: number;
  /** What holds it: `warden serve`, `the Warden app`. */
  what: string;
  since: string;
}

export interface CoreLock {
  path: string;
  release(): Promise<void>;
}

export interface CoreLockRefused {
  kind: 'core-running';
  message: string;
  remedy: string;
  owner: LockOwner;
}

/** Where the lock of `wardenHome` lives. */
export function coreLockPath(wardenHome: string): string {
  return join(wardenHome, 'run', 'core.lock');
}

/** True when a process with `pid` exists (EPERM: it exists but belongs to another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && Number.isInteger(value.pid) && value.pid > 0)
      return {
        pid: value.pid,
        what: String(value.what ?? 'a Warden core'),
        since: String(value.since ?? ''),
      };
  } catch {
    /* a torn or foreign file: treated as stale */
  }
  return undefined;
}

async function readOwner(
  path: string,
): Promise<{ text: string; owner: LockOwner | undefined } | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    return { text, owner: parseOwner(text) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Takes the lock of `wardenHome` for this process, or says which process holds it. A stale lock
 * (its process gone, or unreadable) is moved aside atomically, so that two cores starting at
 * once over a stale lock cannot both win.
 */
export async function acquireCoreLock(
  wardenHome: string,
  what: string,
  alive: (pid: number) => boolean = processAlive,
): Promise<Result<CoreLock, CoreLockRefused>> {
  const dir = join(wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = coreLockPath(wardenHome);
  const mine = `${JSON.stringify({ pid: process.pid, what, since: new Date().toISOString() })}\n`;
  // Written whole under a private name first, then linked in: the lock never exists half-written.
  const draft = join(dir, `core.lock.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(draft, mine, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(draft, path);
        return ok(lockHandle(path, mine));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = await readOwner(path);
      if (!held) continue;
      if (held.owner && alive(held.owner.pid)) return err(refusal(wardenHome, path, held.owner));
      // Stale: move it aside, then check that what moved is what was judged stale.
      const aside = `${path}.stale.${process.pid}`;
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = await readFile(aside, 'utf8').catch(() => '');
      if (moved !== held.text) await link(aside, path).catch(() => undefined);
      await rm(aside, { force: true });
    }
    const held = await readOwner(path);
    if (held?.owner) return err(refusal(wardenHome, path, held.owner));
    throw new Error(`could not take the lock ${path}`);
  } finally {
    await rm(draft, { force: true });
  }
}

function refusal(wardenHome: string, path: string, owner: LockOwner): CoreLockRefused {
  return {
    kind: 'core-running',
    owner,
    message: `${owner.what} (PID ${owner.pid}) is already running for ${wardenHome}`,
    remedy: `use that one, or stop it first (kill ${owner.pid}); for a separate Warden, set WARDEN_HOME to another folder. If no such process is Warden, delete ${path}`,
  };
}

function lockHandle(path: string, mine: string): CoreLock {
  let released = false;
  // A process that exits without closing (an uncaught error) still frees the folder.
  const onExit = () => releaseSync();
  const releaseSync = () => {
    if (released) return;
    released = true;
    process.off('exit', onExit);
    try {
      if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
    } catch {
      /* already gone */
    }
  };
  process.on('exit', onExit);
  return { path, release: () => Promise.resolve(releaseSync()) };
}
