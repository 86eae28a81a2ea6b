/**
 * What the hidden-path search learnt of each folder below a root, so that the next launch reads
 * only folders that changed. A folder is known by its device, inode and ctime: adding, removing
 * or renaming an entry changes its ctime, which no one but the kernel sets. A folder whose
 * ctime was within a margin of the moment it was read (timestamps are coarse) or lies in the future
 * is never remembered, so a change in the same tick as the read cannot be missed. Only folders on
 * local file systems whose ctime the kernel keeps are remembered.
 *
 * The records feed a security decision, so those kept on disk (under the Warden state folder) are
 * used only from a folder and file that are this user's and private, that parse, and that name
 * the same root and patterns; anything else is treated as absent and costs a full search.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  type Stats,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isPrivate } from '../config/validated-config-cache';
import {
  type AheadOutput,
  type SettledRoot,
  type SettledSearch,
  aheadListFile,
  readAheadOutput,
  readSettledSearch,
  settledFile,
  writeAheadList,
  writeSettledSearch,
} from './hidden-paths-ahead';
import {
  type FolderRecord,
  type FolderRecords,
  parseFolderRecords,
  serializeFolderRecords,
} from './hidden-paths-record';
import { markUsed, sweepHiddenPathsCache } from './hidden-paths-sweep';

export type { FolderRecord, FolderRecords } from './hidden-paths-record';
export type { SettledRoot } from './hidden-paths-ahead';

export interface HiddenPathsCache {
  /** The records of the last search of `root` for `patterns` (empty when none can be trusted). */
  load(root: string, patterns: readonly string[]): Promise<FolderRecords>;
  /** Marks the records of `root` as used by this launch (a settled search reads none). */
  used(root: string, patterns: readonly string[]): void;
  /** Remembers the records of a search just made; `write` (or `flush`) puts them on disk. */
  store(root: string, patterns: readonly string[], records: FolderRecords): void;
  /**
   * Writes what `store` has not written yet, off the caller's turn: on a later turn of the event
   * loop, with asynchronous file calls. A backend has it run once the process is spawned, so the
   * write never holds up the launch; a crash before it costs the next process a full search, and
   * a file torn by one is refused on read. It also marks the files this process used, and sweeps
   * those no launch has used for long (hidden-paths-sweep.ts). Settles when done; never rejects.
   */
  write(): Promise<void>;
  /** Writes what `store` has not written yet, now, synchronously. */
  flush(): void;
  /**
   * Whether the shell front's `stat`, run ahead of this process, showed `folder` as the same
   * directory as its record `known` (main/sandbox/hidden-paths-ahead.ts): then the search takes
   * the record without an `lstat` of its own.
   */
  confirmed(folder: string, known: FolderRecord): boolean;
  /**
   * Has `write` leave `folders` (the folders recorded for the roots of `server`) for the shell
   * front to check ahead of `server`'s next launch, unless the list there already serves: the
   * check ahead showed every one of them, or, without one, a list is there and no record `changed`.
   */
  listFolders(server: string, folders: readonly string[], changed: boolean): void;
  /**
   * What `server`'s last search found below each root, when the check ahead shows every folder
   * of it unchanged since a search that it confirmed, for the same `inputs`: all but the few
   * folders that search read afresh, which the caller lists again (`SettledRoot.reread`).
   */
  settled(server: string, inputs: string): readonly SettledRoot[] | undefined;
  /** Has `write` keep a search that the check ahead confirmed (see `settled`). */
  settle(server: string, inputs: string, roots: SettledRoot[]): void;
  /**
   * Ends the first search's use of the check ahead: it shows the folders as they were when the
   * process started, so a later search in the same process (a restart, another launch) checks
   * every folder itself.
   */
  spendAhead(): void;
  /** Whether `info`, taken at `readAt` (ms), may be remembered or reused. */
  trustable(info: Stats, path: string, readAt: number): boolean;
  /** The clock (ms since the epoch). */
  now(): number;
}

export interface HiddenPathsCacheOptions {
  /** Where records persist (`<wardenHome>/cache/hidden-paths`); absent: memory only. */
  dir?: string;
  now?: () => number;
  /** How much older than its read a folder's ctime must be to be trusted (default 2 s). */
  marginMs?: number;
  /** The value of WARDEN_STAT_AHEAD: the process the shell front checked folders ahead for. */
  aheadToken?: string;
}

/** A record file larger than this is not read (a full search is cheaper than parsing it). */
export const MAX_RECORD_FILE_BYTES = 64 * 1024 * 1024;

/** How many roots' records, and folder records in all, one process keeps in memory. */
const MEMORY_ROOTS = 32;
const MEMORY_FOLDERS = 1_000_000;

/**
 * Linux file systems (statfs magic numbers) that keep a folder's ctime on every change of its
 * entries. Network file systems are absent on purpose: their attributes may be cached stale.
 */
const LOCAL_FS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
]);

/** The directory holding hidden-path records for the state folder `wardenHome`. */
export function hiddenPathsCacheDir(wardenHome: string): string {
  return join(wardenHome, 'cache', 'hidden-paths');
}

/**
 * Who reads the folders: a folder is recorded as one this user may not list (EACCES in
 * hidden-paths-walk.ts), or with what it lists, which holds only for the same user and groups.
 */
export function searchReader(): string {
  const groups = [...(process.getgroups?.() ?? [])].sort((a, b) => a - b);
  return JSON.stringify([process.getuid?.(), process.getgid?.(), groups]);
}

/** The folders a settled search read afresh, whose records its digest leaves out. */
const rereadFolders = (roots: readonly SettledRoot[]) =>
  new Set(roots.flatMap((r) => r.reread.map((f) => f.folder)));

const keyOf = (root: string, patterns: readonly string[]) =>
  JSON.stringify([root, [...patterns].sort(), searchReader()]);

/** Creates a cache of hidden-path search records, in memory and, given `dir`, on disk. */
export function hiddenPathsCache(options: HiddenPathsCacheOptions = {}): HiddenPathsCache {
  const now = options.now ?? Date.now;
  const marginMs = options.marginMs ?? 2000;
  const memory = new Map<string, FolderRecords>();
  const localDevs = new Map<number, boolean>();
  const fileOf = (key: string) =>
    join(options.dir!, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  const privateDir = (dir: string) => isPrivate(join(dir, '..'), true) && isPrivate(dir, true);

  const isLocal = (dev: number, path: string) => {
    let local = localDevs.get(dev);
    if (local === undefined) {
      try {
        local = process.platform === 'linux' && LOCAL_FS.has(Number(statfsSync(path).type));
      } catch {
        local = false;
      }
      localDevs.set(dev, local);
    }
    return local;
  };

  /**
   * The records on disk, read synchronously: one file, once per root in a process (then from
   * memory), where four thread-pool round trips cost a new process more than the read itself.
   */
  const readDisk = (root: string, patterns: readonly string[]) => {
    if (!options.dir || !privateDir(options.dir)) return undefined;
    const file = fileOf(keyOf(root, patterns));
    if (!isPrivate(file, false)) return undefined;
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return undefined;
    }
    try {
      if (fstatSync(fd).size > MAX_RECORD_FILE_BYTES) return undefined;
      const records = parseFolderRecords(readFileSync(fd, 'utf8'), root, patterns);
      if (records) used.add(file);
      return records;
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  };

  /** The file, a fresh temporary name beside it and the text to write, once the folder is private. */
  const planWrite = (root: string, patterns: readonly string[], records: FolderRecords) => {
    const dir = options.dir!;
    if (!privateDir(dir)) return undefined;
    const text = serializeFolderRecords(root, patterns, records);
    if (text.length > MAX_RECORD_FILE_BYTES) return undefined;
    const file = fileOf(keyOf(root, patterns));
    return { file, tmp: `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`, text };
  };

  // Read (and removed) at the first search, as late as can be: the shell's `stat` runs meanwhile.
  // Null once read and absent, or spent by that search.
  let ahead: AheadOutput | undefined | null;
  const readAhead = () => {
    if (ahead === undefined) {
      ahead = (options.dir && readAheadOutput(options.dir, options.aheadToken)) || null;
    }
    return ahead ?? undefined;
  };
  const lists = new Map<string, readonly string[]>();
  const settles = new Map<string, SettledSearch>();

  /** Files of the cache this process used, marked by `write`. */
  const used = new Set<string>();
  const unwritten = new Map<string, [string, readonly string[], FolderRecords]>();
  /** What `store` left unwritten, taken out of the queue. */
  const take = () => {
    const queued = [...unwritten.values()];
    unwritten.clear();
    return options.dir ? queued : [];
  };

  const flush = () => {
    for (const [root, patterns, records] of take()) {
      try {
        mkdirSync(options.dir!, { recursive: true, mode: 0o700 });
        const plan = planWrite(root, patterns, records);
        if (!plan) continue;
        try {
          writeFileSync(plan.tmp, plan.text, { mode: 0o600, flag: 'wx' });
          renameSync(plan.tmp, plan.file);
        } finally {
          rmSync(plan.tmp, { force: true });
        }
      } catch {
        // Not written: the next process searches in full, which is all a record saves.
      }
    }
  };

  const write = async () => {
    if (unwritten.size === 0 && lists.size === 0 && settles.size === 0 && used.size === 0) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const [server, folders] of lists) {
      lists.delete(server);
      if (options.dir) await writeAheadList(options.dir, server, folders);
    }
    for (const [server, search] of settles) {
      settles.delete(server);
      if (options.dir) await writeSettledSearch(options.dir, server, search);
    }
    for (const [root, patterns, records] of take()) {
      try {
        await mkdir(options.dir!, { recursive: true, mode: 0o700 });
        const plan = planWrite(root, patterns, records);
        if (!plan) continue;
        try {
          await writeFile(plan.tmp, plan.text, { mode: 0o600, flag: 'wx' });
          await rename(plan.tmp, plan.file);
        } finally {
          await rm(plan.tmp, { force: true });
        }
      } catch {
        // As in flush: only the next process's speed-up is lost.
      }
    }
    const marked = [...used];
    used.clear();
    if (options.dir && privateDir(options.dir)) {
      await markUsed(marked, Date.now());
      await sweepHiddenPathsCache(options.dir, Date.now());
    }
  };

  const remember = (key: string, records: FolderRecords) => {
    memory.delete(key);
    memory.set(key, records);
    // The least recently used roots go first; the newest stays (the disk copy bounds it).
    let folders = 0;
    for (const r of memory.values()) folders += r.size;
    for (const [oldest, r] of memory) {
      if (memory.size <= 1 || (memory.size <= MEMORY_ROOTS && folders <= MEMORY_FOLDERS)) break;
      memory.delete(oldest);
      folders -= r.size;
    }
  };

  return {
    load(root, patterns) {
      // A device number may name another mount by the next search: each search asks afresh.
      localDevs.clear();
      readAhead();
      const key = keyOf(root, patterns);
      const known = memory.get(key) ?? readDisk(root, patterns);
      if (known) remember(key, known);
      return Promise.resolve(known ?? new Map<string, FolderRecord>());
    },
    used(root, patterns) {
      if (options.dir) used.add(fileOf(keyOf(root, patterns)));
    },
    store(root, patterns, records) {
      const key = keyOf(root, patterns);
      remember(key, records);
      if (options.dir) unwritten.set(key, [root, patterns, records]);
    },
    write,
    flush,
    confirmed(folder, known) {
      const seen = readAhead()?.stats().get(folder);
      return (
        seen !== undefined &&
        seen.dev === known.dev &&
        seen.ino === known.ino &&
        seen.ctimeMs === known.ctimeMs &&
        isLocal(known.dev, folder)
      );
    },
    listFolders(server, folders, changed) {
      if (!options.dir) return;
      const file = aheadListFile(options.dir, server);
      if (file === undefined) return;
      const shown = readAhead()?.stats();
      const stale = shown ? folders.some((f) => !shown.has(f)) : changed || !existsSync(file);
      if (stale) lists.set(server, folders);
      else used.add(file);
    },
    settled(server, inputs) {
      const output = readAhead();
      if (!output || !options.dir) return undefined;
      const search = readSettledSearch(options.dir, server);
      if (search === undefined || search.inputs !== inputs) return undefined;
      if (search.digest !== output.digest(rereadFolders(search.roots))) return undefined;
      for (const file of [settledFile(options.dir, server), aheadListFile(options.dir, server)])
        if (file !== undefined) used.add(file);
      return search.roots;
    },
    settle(server, inputs, roots) {
      const output = readAhead();
      if (output && options.dir) {
        settles.set(server, { digest: output.digest(rereadFolders(roots)), inputs, roots });
      }
    },
    spendAhead() {
      ahead = null;
    },
    trustable(info, path, readAt) {
      return info.ctimeMs < readAt - marginMs && isLocal(info.dev, path);
    },
    now,
  };
}
