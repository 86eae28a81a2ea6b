/**
 * One serving core (the app or `warden serve`) per state folder: `$WARDEN_HOME/run/core.lock`
 * holds the PID of the core that owns the folder. A second one is refused with that PID; a lock
 * whose process is gone is stale and taken over. Two cores on one folder would fight over the
 * gateway port, the local channel and the audit chain.
 *
 * A PID alone outlives its process: after a crash and a restart another process (a login item
 * started at the same point of the boot, say) may have it, and the folder would stay refused. On
 * Linux the lock therefore also names the boot and the start time of its process, and a process
 * with that PID from another boot or started at another time does not hold it. bin/warden-door.sh
 * makes the same check before it asks the door. A lock taken in another PID namespace (a Warden in
 * a container or a Flatpak sandbox sharing the folder) names a PID that means nothing here: it is
 * held, since whether its process runs cannot be told from here.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type Result, err, ok } from '../../app/result';
import { openStateFolder } from '../config/state-folder-trust';

export interface LockOwner {
  pid: number;
  /** What holds it: `warden serve`, `the Warden app`. */
  what: string;
  since: string;
  /** Linux: the boot (`/proc/sys/kernel/random/boot_id`) the process started in… */
  boot?: string;
  /** …and its start time in clock ticks after that boot (field 22 of `/proc/PID/stat`). */
  start?: string;
  /** Linux: its PID namespace, as `/proc/self/ns/pid` reads, e.g. `pid:[4026531836]`. */
  pidns?: string;
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

/** This boot's id (Linux); undefined where the system has none. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** This process's PID namespace (Linux); undefined where the system has none. */
export function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** When process `pid` started, in clock ticks after the boot (Linux); undefined where unknown. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a lock of `owner`'s was taken in a PID namespace other than this process's. */
export function otherNamespace(owner: Pick<LockOwner, 'pidns'>): boolean {
  return owner.pidns !== undefined && owner.pidns !== pidNamespace();
}

/** Which start of a process `pid` is, where the system tells (Linux); undefined elsewhere. */
export function processStart(pid: number): { boot: string; start: string } | undefined {
  const boot = bootId();
  const start = startTicks(pid);
  return boot !== undefined && start !== undefined ? { boot, start } : undefined;
}

/**
 * Whether the core a lock names still runs: its PID is alive and, where the lock says which start
 * of that PID it was, the process with that PID now is that start. A lock from another PID
 * namespace, and what cannot be read, count as the core (a folder wrongly refused says how to
 * free it; two cores on one folder would not).
 */
export function lockHeld(owner: Pick<LockOwner, 'pid' | 'boot' | 'start' | 'pidns'>): boolean {
  if (otherNamespace(owner)) return true;
  if (!processAlive(owner.pid)) return false;
  if (owner.boot === undefined || owner.start === undefined) return true;
  const boot = bootId();
  if (boot === undefined) return true;
  if (boot !== owner.boot) return false;
  const start = startTicks(owner.pid);
  return start === undefined || start === owner.start;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && Number.isInteger(value.pid) && value.pid > 0)
      return {
        pid: value.pid,
        what: String(value.what ?? 'a Warden core'),
        since: String(value.since ?? ''),
        ...(typeof value.boot === 'string' && typeof value.start === 'string'
          ? { boot: value.boot, start: value.start }
          : {}),
        ...(typeof value.pidns === 'string' ? { pidns: value.pidns } : {}),
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

/** How long a takeover may take before another core may assume its holder died. */
const TAKEOVER_STALE_MS = 10_000;

/** The right to remove a stale lock, held by one core at a time (a file linked in, like the lock). */
async function takeTakeover(draft: string, path: string): Promise<boolean> {
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const since = await stat(path).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (Date.now() - since > TAKEOVER_STALE_MS) await rm(path, { force: true });
  return false;
}

/**
 * Takes the lock of `wardenHome` for this process, or says which process holds it. A stale lock
 * (its process gone, or unreadable) is removed by one core at a time, after reading it again, so
 * that cores starting at once over a stale lock never both win. The app and `warden serve` take
 * it before their core opens the folder: a folder that may not be this user's alone is refused
 * here first (StateFolderRefused is thrown), before anything is written in it.
 */
export async function acquireCoreLock(
  wardenHome: string,
  what: string,
  holds: (owner: LockOwner) => boolean = lockHeld,
): Promise<Result<CoreLock, CoreLockRefused>> {
  await openStateFolder(wardenHome);
  const dir = join(wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = coreLockPath(wardenHome);
  const taken = await takeLockFile(path, what, holds);
  return taken.ok ? taken : err(refusal(wardenHome, path, taken.error));
}

/**
 * Takes the lock file `path` (in a folder that exists) for this process as `what`, or answers the
 * live process that holds it. The file is written whole under a private name and linked in, so it
 * never exists half-written; one whose holder is gone (`holds` says no) or that cannot be read is
 * removed by one taker at a time, after reading it again, so two takers never both win.
 */
export async function takeLockFile(
  path: string,
  what: string,
  holds: (owner: LockOwner) => boolean = lockHeld,
): Promise<Result<CoreLock, LockOwner>> {
  const takeover = `${path}.takeover`;
  const pidns = pidNamespace();
  const owner: LockOwner = {
    pid: process.pid,
    what,
    since: new Date().toISOString(),
    ...processStart(process.pid),
    ...(pidns === undefined ? {} : { pidns }),
  };
  const mine = `${JSON.stringify(owner)}\n`;
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(draft, mine, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        await link(draft, path);
        return ok(lockHandle(path, mine));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = await readOwner(path);
      if (!held) continue;
      if (held.owner && holds(held.owner)) return err(held.owner);
      if (await takeTakeover(draft, takeover)) {
        try {
          const again = await readOwner(path);
          if (again?.text === held.text) await rm(path, { force: true });
        } finally {
          await rm(takeover, { force: true });
        }
      } else {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    const held = await readOwner(path);
    if (held?.owner) return err(held.owner);
    throw new Error(`could not take the lock ${path}`);
  } finally {
    await rm(draft, { force: true });
  }
}

/**
 * Takes the lock file `path` (in a folder that exists) once it is free, looking again every 25 ms
 * for `waitMs` at most; else answers the live process that still holds it.
 */
export async function waitForLockFile(
  path: string,
  what: string,
  waitMs: number,
): Promise<Result<CoreLock, LockOwner>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const taken = await takeLockFile(path, what);
    if (taken.ok || Date.now() >= deadline) return taken;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A change that waited its time for another Warden process holding the same file's lock. */
export class LockFileHeld extends Error {
  constructor(
    readonly lockPath: string,
    readonly owner: LockOwner,
    waitMs: number,
  ) {
    super(
      `another Warden process (PID ${owner.pid}, ${owner.what}) has held ${lockPath} for over ${waitMs / 1000} s; retry, or stop that process (delete ${lockPath} if it is not Warden)`,
    );
  }
}

/**
 * Runs `work` holding `<file>.lock`, which this user's other Warden processes take to change
 * `file` too: for a file read, changed and written whole, so that no change is written back over
 * another made meanwhile. Throws {@link LockFileHeld} when a live process holds it past `waitMs`.
 */
export async function withLockFile<T>(
  file: string,
  what: string,
  work: () => Promise<T>,
  waitMs = 10_000,
): Promise<T> {
  const lockPath = `${file}.lock`;
  const taken = await waitForLockFile(lockPath, what, waitMs);
  if (!taken.ok) throw new LockFileHeld(lockPath, taken.error, waitMs);
  try {
    return await work();
  } finally {
    await taken.value.release();
  }
}

function refusal(wardenHome: string, path: string, owner: LockOwner): CoreLockRefused {
  if (otherNamespace(owner))
    return {
      kind: 'core-running',
      owner,
      message: `${owner.what} (PID ${owner.pid} in another PID namespace: a container or a Flatpak sandbox, say) holds ${wardenHome}`,
      remedy: `use that one, or stop it where it runs; for a separate Warden, set WARDEN_HOME to another folder. If it no longer runs, delete ${path}`,
    };
  return {
    kind: 'core-running',
    owner,
    message: `${owner.what} (PID ${owner.pid}) is already running for ${wardenHome}`,
    remedy: `use that one ("warden open" shows its control panel), or stop it first (kill ${owner.pid}); for a separate Warden, set WARDEN_HOME to another folder. If no such process is Warden, delete ${path}`,
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
