/**
 * An instance's private folder and who owns it. The folder (`<instances>/<id>`) is where the
 * Landlock and Seatbelt sandboxes keep the server's home and temporary files; a session that ends
 * removes it. A session killed outright (SIGKILL, a crash, the machine going down) cannot, so each
 * folder has an owner record beside it, outside what the server sees (`<id>.owner`): the PID of
 * the process that made it, its PID namespace, the boot and that process's start time. A core
 * sweeps the folders whose owner is gone.
 *
 * What cannot be told for sure is kept: a folder without a record (one being made, or left by an
 * older build), a record that does not parse, and a record made in another PID namespace (a
 * client in a flatpak, say, whose PIDs mean nothing here) are never removed.
 */
import { lstat, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { lockHeld, pidNamespace, processStart } from './core-lock';

/** The process that made an instance folder. */
export interface InstanceOwner {
  pid: number;
  /** Linux: `/proc/self/ns/pid` as the owner read it, e.g. `pid:[4026531836]`. */
  pidns?: string;
  boot?: string;
  start?: string;
}

const OWNER_SUFFIX = '.owner';

function ownerPath(dir: string): string {
  return `${dir}${OWNER_SUFFIX}`;
}

let ownRecord: string | undefined;

/** This process's owner record, as written (read from /proc once per process). */
function thisOwner(): string {
  if (ownRecord === undefined) {
    const pidns = pidNamespace();
    const owner: InstanceOwner = {
      pid: process.pid,
      ...(pidns ? { pidns } : {}),
      ...processStart(process.pid),
    };
    ownRecord = JSON.stringify(owner);
  }
  return ownRecord;
}

/**
 * Makes the private folder `dir` (mode 0700) and its owner record, both at once (this runs
 * before a launch's spawn). A sweep that comes in between keeps either: a folder without a record,
 * and a record whose owner is this live process.
 */
export async function makeInstanceFolder(dir: string): Promise<void> {
  await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
  await Promise.all([
    writeFile(ownerPath(dir), thisOwner(), { mode: 0o600 }),
    mkdir(dir, { recursive: true, mode: 0o700 }),
  ]);
}

/** Removes the private folder `dir` and then its owner record. */
export async function removeInstanceFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await rm(ownerPath(dir), { force: true });
}

function parseOwner(text: string): InstanceOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<InstanceOwner>;
    if (typeof v.pid !== 'number' || !Number.isSafeInteger(v.pid) || v.pid <= 0) return undefined;
    const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
    const pidns = str(v.pidns);
    const boot = str(v.boot);
    const start = str(v.start);
    return {
      pid: v.pid,
      ...(pidns ? { pidns } : {}),
      ...(boot !== undefined && start !== undefined ? { boot, start } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Whether the owner a record names is gone for certain. */
function ownerGone(owner: InstanceOwner, here: string | undefined): boolean {
  // PIDs of another namespace cannot be checked from this one; a record without one cannot be
  // placed where this process has one.
  if (owner.pidns !== here) return false;
  return !lockHeld(owner);
}

/**
 * Removes the folders under `instancesDir` whose owner is gone, with their records, and records
 * whose folder is already gone; returns the folders removed. Never throws.
 */
export async function sweepInstanceFolders(instancesDir: string): Promise<string[]> {
  const names = await readdir(instancesDir).catch(() => [] as string[]);
  const here = pidNamespace();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith(OWNER_SUFFIX)) continue;
    const record = join(instancesDir, name);
    const owner = parseOwner(await readFile(record, 'utf8').catch(() => ''));
    if (!owner || !ownerGone(owner, here)) continue;
    const dir = record.slice(0, -OWNER_SUFFIX.length);
    const info = await lstat(dir).catch(() => undefined);
    try {
      // Only a folder is removed: anything else in its place (a symlink, say) stays, as does
      // its record.
      if (info?.isDirectory()) {
        await rm(dir, { recursive: true, force: true });
        removed.push(dir);
      }
      if (!info || info.isDirectory()) await rm(record, { force: true });
    } catch {
      // Busy or not permitted: the next sweep tries again.
    }
  }
  return removed;
}
