/**
 * The hidden-path search checked ahead of Node. A standalone `warden connect` spent most of its
 * search on one `lstat` per recorded folder, which a new Node process makes several times slower
 * than C. So each launch of a server leaves the list of the folders its search recorded
 * (`ahead/NAME.folders`), and the shell front (`warden_ahead` in bin/warden-door.sh) hands that
 * list to coreutils' `stat` in the background before it starts Node, writing what it finds to
 * `ahead/PID` (the PID that Node then has). The search takes a recorded folder as unchanged
 * without its own `lstat` when that file shows it as the same directory: same device, inode and
 * ctime. A search that the file confirmed is kept as settled (`ahead/NAME.settled`) with the
 * SHA-256 of the file's records: while later files show those records byte for byte the same,
 * its result stands. A search may be kept with up to MAX_REREAD_FOLDERS folders that the file
 * did not confirm (those a server changes at every launch, such as npm's logs in its cache):
 * their records are left out of the digest, and a launch that takes the search lists each of
 * them again, taking it only while each holds the same sub-folders and matching names.
 *
 * The file can only confirm a record, never make one or hide a change: a folder it leaves out or
 * shows otherwise is checked as before. It is used only by the process its name and
 * `WARDEN_STAT_AHEAD` both name, only as a file of this user's in a folder only this user may
 * enter, only for that process's first search (a restart later checks every folder itself), and
 * is removed once read. What it shows is as old as the process: a folder that changes
 * between the `stat` and the spawn, some 100–200 ms, is found by the next launch, as one that
 * changes between the search and the spawn always was.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isPrivate } from '../config/validated-config-cache';
import { isNames } from './hidden-paths-record';

/** A folder as `stat` showed it ahead of this process. */
export interface AheadStat {
  dev: number;
  ino: number;
  ctimeMs: number;
}

/** The variable through which the shell front names the process it checked ahead for. */
export const AHEAD_VARIABLE = 'WARDEN_STAT_AHEAD';

/** At most this many folders are listed (the shell's `stat` of more would outlast a launch). */
export const MAX_AHEAD_FOLDERS = 200_000;

/** An output file larger than this is not read. */
const MAX_AHEAD_BYTES = 64 * 1024 * 1024;

/** Server names the shell front accepts (as bin/warden-door.sh does). */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The folder of the lists and outputs, under the hidden-path records' folder `cacheDir`. */
export function aheadDir(cacheDir: string): string {
  return join(cacheDir, 'ahead');
}

/** The list of `server`'s recorded folders, or undefined for a name the shell would not use. */
export function aheadListFile(cacheDir: string, server: string): string | undefined {
  return SERVER_NAME.test(server) ? join(aheadDir(cacheDir), `${server}.folders`) : undefined;
}

/** One record of the output: `DEV INO MODE(hex) SEC.NSEC PATH`, as `stat --printf` writes it. */
const RECORD = /^(\d{1,20}) (\d{1,20}) ([0-9a-f]{1,8}) (\d{1,15})\.(\d{9}) (\/.*)$/s;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

/**
 * The directories in the text of an output file, by path. Only records ended by their NUL count
 * (the file may still be being written); anything that does not parse is left out. The ctime
 * comes to milliseconds as Node computes `ctimeMs`, so that it compares equal to a record of it.
 */
export function parseAheadOutput(text: string): Map<string, AheadStat> {
  const found = new Map<string, AheadStat>();
  const records = text.split('\0');
  // The last piece has no NUL after it: a record cut short, or nothing.
  for (let i = 0; i < records.length - 1; i++) {
    const m = RECORD.exec(records[i]!);
    if (m === null) continue;
    if ((parseInt(m[3]!, 16) & S_IFMT) !== S_IFDIR) continue;
    const ctimeMs = Number(m[4]) * 1000 + Number(m[5]) / 1e6;
    found.set(m[6]!, { dev: Number(m[1]), ino: Number(m[2]), ctimeMs });
  }
  return found;
}

/** What the shell front's `stat` wrote ahead of this process. */
export interface AheadOutput {
  /**
   * The SHA-256 of its whole records, leaving out those of the folders in `except`: equal digests
   * show every other listed folder the same.
   */
  digest(except: ReadonlySet<string>): string;
  /** The directories it shows, by path (parsed on first use). */
  stats(): ReadonlyMap<string, AheadStat>;
}

/**
 * What the shell front found ahead of this process (`pid`), read once and removed; undefined
 * without a token for this process or a file of this user's in a private folder. The token is
 * `PID:JOB`: the shell's PID (this process's, after `exec`) and that of the `xargs` it left
 * running, which is stopped once the output is read (a list of many folders can outlast the
 * search, and would only take CPU from the server's start). The job is this process's child, and
 * stays a zombie until it exits (nothing here waits for it), so its PID cannot name another
 * process meanwhile.
 */
export function readAheadOutput(
  cacheDir: string,
  token: string | undefined,
  pid = process.pid,
): AheadOutput | undefined {
  const [own, job] = (token ?? '').split(':');
  if (own !== String(pid)) return undefined;
  if (job !== undefined && /^[1-9]\d*$/.test(job)) {
    try {
      process.kill(Number(job), 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
  const dir = aheadDir(cacheDir);
  const file = join(dir, own);
  // The folder is what keeps others out: the shell makes the file with the user's umask.
  if (!isPrivate(cacheDir, true) || !isPrivate(dir, true)) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = fstatSync(fd);
    if (!info.isFile() || (process.getuid !== undefined && info.uid !== process.getuid())) {
      return undefined;
    }
    // Empty: a `stat` that has written nothing yet, or one that cannot print this format.
    if (info.size === 0 || info.size > MAX_AHEAD_BYTES) return undefined;
    const bytes = readFileSync(fd);
    let parsed: Map<string, AheadStat> | undefined;
    return {
      digest: (except) => digestOf(bytes, except),
      stats: () => (parsed ??= parseAheadOutput(bytes.toString('utf8'))),
    };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      // Gone already: nothing to tidy.
    }
  }
}

/**
 * The digest of the records of `bytes` (an output) ended by their NUL, but those of the folders
 * in `except`: a record is `DEV INO MODE CTIME PATH`, and its first four fields hold no space, so
 * a folder's record is where ` PATH` + NUL follows exactly three spaces after the record's start.
 * One hash over slices of the bytes as read: the output of a big root holds thousands of records.
 */
function digestOf(bytes: Buffer, except: ReadonlySet<string>): string {
  const end = bytes.lastIndexOf(0) + 1;
  const cuts: [number, number][] = [];
  for (const folder of except) {
    const needle = Buffer.from(` ${folder}\0`);
    let at = bytes.indexOf(needle);
    while (at !== -1 && at < end) {
      const start = bytes.lastIndexOf(0, at) + 1;
      let spaces = 0;
      for (let i = start; i < at && spaces < 4; i++) if (bytes[i] === 0x20) spaces++;
      if (spaces === 3) cuts.push([start, at + needle.length]);
      at = bytes.indexOf(needle, at + 1);
    }
  }
  cuts.sort((x, y) => x[0] - y[0]);
  const hash = createHash('sha256');
  let from = 0;
  for (const [start, stop] of cuts) {
    hash.update(bytes.subarray(from, start));
    from = stop;
  }
  return hash.update(bytes.subarray(from, end)).digest('hex');
}

/**
 * A folder the search read afresh (or checked with its own `lstat`) rather than take as the check
 * ahead showed it: what it held then, to compare with what it holds at a later launch.
 */
export interface ReadFolder {
  folder: string;
  /** Entries counted against the budget. */
  count: number;
  /** Sub-folders whose names match no pattern, and entries whose names match one. */
  dirs: readonly string[];
  matches: readonly string[];
}

/** What the name-pattern search found below one root. */
export interface SettledRoot {
  root: string;
  /** Entries it counted against the search's budget. */
  entries: number;
  /** Paths whose names matched, as the walk passed them on. */
  matches: string[];
  /**
   * Folders a security control refused to list (masked whole, among `matches`): granting access
   * moves no ctime, so each is tried again before the search is taken.
   */
  refused: string[];
  /**
   * The few folders the check ahead did not confirm (most often those a server changes at every
   * launch: npm's logs and cache index). They are left out of the digest and listed again by the
   * launch that takes the search: it stands only while each holds the same sub-folders and
   * matching names.
   */
  reread: ReadFolder[];
}

/**
 * A search that the check ahead confirmed but for a few folders it read afresh: every other
 * folder it went through was unchanged since its record, as the output with `digest` (leaving
 * out the folders read afresh) showed. While every record of a later output but theirs is byte
 * for byte the same, every one of those folders still is, and so is what the search found below
 * them, for the same `inputs` (roots, patterns, folders masked whole, budget).
 */
export interface SettledSearch {
  digest: string;
  inputs: string;
  roots: SettledRoot[];
}

/**
 * 2 from the folders read afresh on: a build that took 1 would not read them again; 3: names are
 * matched whatever their case.
 */
const FORMAT = 3;

/** At most this many folders read afresh are kept with a settled search (each is listed again). */
export const MAX_REREAD_FOLDERS = 64;

/** The settled search of `server`'s launches, or undefined for a name the shell would not use. */
export function settledFile(cacheDir: string, server: string): string | undefined {
  return SERVER_NAME.test(server) ? join(aheadDir(cacheDir), `${server}.settled`) : undefined;
}

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

function settledRootOf(v: unknown): SettledRoot | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { root, entries, matches, refused, reread } = v as Record<string, unknown>;
  if (typeof root !== 'string' || !root.startsWith('/') || !isCount(entries)) return undefined;
  if (!Array.isArray(matches) || !Array.isArray(refused) || !Array.isArray(reread)) {
    return undefined;
  }
  const prefix = root === '/' ? '/' : `${root}/`;
  const inside = (m: unknown): m is string =>
    typeof m === 'string' && (m === root || m.startsWith(prefix)) && !m.includes('\0');
  if (!matches.every(inside) || !refused.every(inside)) return undefined;
  if (reread.length > MAX_REREAD_FOLDERS) return undefined;
  const folders: ReadFolder[] = [];
  for (const r of reread as unknown[]) {
    if (typeof r !== 'object' || r === null) return undefined;
    const { folder, count, dirs, matches: named } = r as Record<string, unknown>;
    if (!inside(folder) || !isCount(count) || !isNames(dirs) || !isNames(named)) return undefined;
    if (dirs.length + named.length > count) return undefined;
    folders.push({ folder, count, dirs, matches: named });
  }
  return { root, entries, matches, refused, reread: folders };
}

/** The settled search of `server` when a private file of this user's holds a valid one. */
export function readSettledSearch(cacheDir: string, server: string): SettledSearch | undefined {
  const file = settledFile(cacheDir, server);
  if (file === undefined || !isPrivate(aheadDir(cacheDir), true) || !isPrivate(file, false)) {
    return undefined;
  }
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (v.format !== FORMAT || typeof v.digest !== 'string' || typeof v.inputs !== 'string') {
      return undefined;
    }
    if (!Array.isArray(v.roots)) return undefined;
    const roots = v.roots.map(settledRootOf);
    if (roots.some((r) => r === undefined)) return undefined;
    return { digest: v.digest, inputs: v.inputs, roots: roots as SettledRoot[] };
  } catch {
    return undefined;
  }
}

/** Writes `server`'s settled search (replaced whole); never rejects. */
export async function writeSettledSearch(
  cacheDir: string,
  server: string,
  search: SettledSearch,
): Promise<void> {
  const file = settledFile(cacheDir, server);
  if (file === undefined) return;
  await replaceFile(cacheDir, file, JSON.stringify({ format: FORMAT, ...search }));
}

/** Writes `text` to `file` in the ahead folder under a fresh name, then renames it in place. */
async function replaceFile(cacheDir: string, file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(aheadDir(cacheDir), { recursive: true, mode: 0o700 });
    if (!isPrivate(cacheDir, true) || !isPrivate(aheadDir(cacheDir), true)) return;
    await writeFile(tmp, text, { mode: 0o600, flag: 'wx' });
    await rename(tmp, file);
  } catch {
    await rm(tmp, { force: true }).catch(() => undefined);
  }
}

/**
 * Writes the list of `folders` for `server`'s next launch (NUL-separated, replaced whole), or
 * removes it when there are too many to check ahead. Never rejects: without a list the next
 * launch checks every folder itself.
 */
export async function writeAheadList(
  cacheDir: string,
  server: string,
  folders: readonly string[],
): Promise<void> {
  const file = aheadListFile(cacheDir, server);
  if (file === undefined) return;
  try {
    if (folders.length > MAX_AHEAD_FOLDERS) {
      await rm(file, { force: true });
      return;
    }
    await replaceFile(cacheDir, file, folders.length > 0 ? `${folders.join('\0')}\0` : '');
    await removeLeftOutputs(aheadDir(cacheDir));
  } catch {
    // Only the next launch's speed-up is lost.
  }
}

/** How old an output file must be to count as left by a process that never read it. */
const LEFT_OUTPUT_MS = 60_000;

/**
 * Removes the outputs of processes that never read theirs (one that failed before its search):
 * the shell does not write over a file already there, so one left would keep its PID unchecked.
 */
async function removeLeftOutputs(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    if (!/^\d+$/.test(name)) continue;
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > LEFT_OUTPUT_MS) await rm(path, { force: true });
  }
}
