/**
 * The name-pattern walk of the hidden-path search: every entry below a root, without following
 * symlinks, in short synchronous slices. Given the records of the previous walk, a folder whose
 * device, inode and ctime are unchanged (and old enough to be trusted) is taken from them with one
 * `lstat` instead of being read, or with none where the check made ahead of the process showed it
 * unchanged; any other folder is read afresh, and so is what lies below it wherever that changed.
 */
import { type Dirent, type Stats, accessSync, constants, lstatSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MAX_REREAD_FOLDERS } from './hidden-paths-ahead';
import type { FolderRecord, FolderRecords, HiddenPathsCache } from './hidden-paths-cache';

/**
 * How long the walk reads folders before it lets the event loop run (other sessions' messages).
 * Reading folders synchronously in short slices is several times faster than one promise per
 * folder, which spends most of a launch waiting on the thread pool.
 */
const WALK_SLICE_MS = 8;

export interface WalkSteps {
  matches: (name: string) => boolean;
  /** Folders not to read (masked whole). */
  skip: (path: string) => boolean;
  add: (path: string) => Promise<void>;
  /** Counts `n` more entries; false once the budget is spent. */
  spend: (n: number) => boolean;
}

/** The previous walk's records of one root, and those of this walk as it goes. */
export interface WalkMemory {
  cache: HiddenPathsCache;
  known: FolderRecords;
  seen: Map<string, FolderRecord>;
  /** Whether a folder was read afresh and recorded. */
  changed: boolean;
  /**
   * The folders not confirmed by the check made ahead (hidden-paths-ahead.ts), with the listing
   * the walk took for each; `odd` once one of them could not be listed (gone, denied, refused),
   * which a later launch could not compare by its names, or once there are more than a settled
   * search keeps.
   */
  reread?: Map<string, Listing>;
  odd?: boolean;
  /** The clock at the start of the current slice: earlier than any stat taken in it. */
  readAt?: number;
}

export interface Listing {
  count: number;
  dirs: readonly string[];
  matches: readonly string[];
  /** The folder could not be listed (EACCES, or an error) and is to be masked whole. */
  denied?: boolean;
  /** The listing was refused by a security control (EPERM): masked whole, tried every search. */
  refused?: boolean;
}

/**
 * Whether `name`, as listed in `dir`, is a name that is not valid UTF-8, which Node gives with
 * U+FFFD in place of each bad byte: no entry is found by it (a real U+FFFD in a name is).
 */
export function mangled(dir: string, name: string): boolean {
  if (!name.includes('\uFFFD')) return false;
  try {
    return lstatSync(`${dir}/${name}`, { throwIfNoEntry: false }) === undefined;
  } catch {
    return true;
  }
}

const NOTHING: Listing = { count: 0, dirs: [], matches: [] };
const DENIED: Listing = { count: 0, dirs: [], matches: [], denied: true };
/** A folder that could not be read for another reason than its mode bits, masked whole. */
const UNREADABLE: Listing = DENIED;
const REFUSED: Listing = { ...DENIED, refused: true };

type Unlisted = 'denied' | 'refused' | 'unreadable' | undefined;

/**
 * A folder's entries, sorted into matches and sub-folders; `denied` when its permissions keep
 * this user out (EACCES), undefined when it is no folder any more (ENOENT, ENOTDIR), `refused`
 * when a security control refused the listing (EPERM: macOS privacy controls, a security module),
 * `unreadable` when it could not be read for any other reason (too many open files, an I/O error).
 * What it holds is then unknown, so it is masked whole for this search.
 */
function readFolder(folder: string, matches: (name: string) => boolean): Listing | Unlisted {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES') return 'denied';
    if (code === 'EPERM') return 'refused';
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : 'unreadable';
  }
  // A name that is not valid UTF-8 reaches Node mangled (U+FFFD): nothing in or under that entry
  // could be addressed, so what the folder holds is unknown and it is masked whole.
  if (entries.some((e) => mangled(folder, e.name))) return 'unreadable';
  const listing = { count: entries.length, dirs: [] as string[], matches: [] as string[] };
  // A matching folder is read too: a workspace folder kept read-only (`.vscode`) may hold a
  // `.env`, and what a masked folder holds is dropped once the search ends.
  for (const entry of entries) {
    if (matches(entry.name)) listing.matches.push(entry.name);
    if (entry.isDirectory()) listing.dirs.push(entry.name);
  }
  return listing;
}

const NO_THROW = { throwIfNoEntry: false } as const;

const statOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path, NO_THROW);
  } catch {
    return undefined;
  }
};

const same = (a: { dev: number; ino: number; ctimeMs: number }, b: Stats) =>
  a.dev === b.dev && a.ino === b.ino && a.ctimeMs === b.ctimeMs;

/**
 * A folder's listing, from the previous walk's record when the folder is unchanged, else read
 * afresh (and recorded when it stayed the same folder throughout the read and is old enough).
 * A folder whose listing a security control refused is tried again every time: granting access
 * moves no ctime.
 */
function visit(folder: string, matches: (name: string) => boolean, memory: WalkMemory): Listing {
  const known = memory.known.get(folder);
  if (known && !known.refused && memory.cache.confirmed(folder, known)) {
    memory.seen.set(folder, known);
    return known;
  }
  const { listing, confirmed } = recallOrRead(folder, known, matches, memory);
  if (confirmed) return listing;
  memory.reread ??= new Map();
  // Past the few a settled search keeps (a search without the check ahead: all of them), the
  // walk stops keeping them.
  if (listing.denied || listing === NOTHING || memory.reread.size >= MAX_REREAD_FOLDERS) {
    memory.odd = true;
  } else if (!memory.odd) memory.reread.set(folder, listing);
  return listing;
}

/**
 * A folder the check ahead did not confirm: its record when its own `lstat` shows it unchanged,
 * else read; `confirmed` only for one a security control still refuses as recorded.
 */
function recallOrRead(
  folder: string,
  known: FolderRecord | undefined,
  matches: (name: string) => boolean,
  memory: WalkMemory,
): { listing: Listing; confirmed: boolean } {
  const readAt = memory.readAt ?? memory.cache.now();
  const before = statOf(folder);
  const trusted =
    before !== undefined && before.isDirectory() && memory.cache.trustable(before, folder, readAt);
  if (trusted && known && !known.refused && same(known, before)) {
    memory.seen.set(folder, known);
    return { listing: known, confirmed: false };
  }
  const read = readFolder(folder, matches);
  // Still refused, and the same folder as recorded: as good as confirmed.
  if (read === 'refused' && trusted && known?.refused && same(known, before)) {
    memory.seen.set(folder, known);
    return { listing: REFUSED, confirmed: true };
  }
  if (!read) return { listing: NOTHING, confirmed: false };
  // Masked, never recorded: the next search reads it again.
  if (read === 'unreadable') return { listing: UNREADABLE, confirmed: false };
  // A folder this user may not list is recorded as what deniedListing makes of it: its owner and
  // permissions cannot change without its ctime, and the records are this user's and groups'
  // (hidden-paths-cache.ts), so that one such folder below a root does not keep every later
  // search from settling. One refused by a security control is recorded as refused, for the same
  // reason, and tried again by every search (above, and `stillRefused` for a settled search).
  const listing =
    read === 'denied'
      ? deniedListing(folder, before)
      : read === 'refused'
        ? REFUSED
        : unenterable(before)
          ? DENIED
          : read;
  const after = trusted ? statOf(folder) : undefined;
  if (before && after && same(before, after)) {
    memory.changed = true;
    memory.seen.set(folder, {
      dev: before.dev,
      ino: before.ino,
      ctimeMs: before.ctimeMs,
      ...listing,
    });
  }
  return { listing, confirmed: false };
}

/**
 * What `folder` holds now, when it is still a directory (not a symlink) that this user may list;
 * undefined otherwise.
 */
export function listAgain(folder: string, matches: (name: string) => boolean): Listing | undefined {
  const info = statOf(folder);
  if (info === undefined || !info.isDirectory()) return undefined;
  const read = readFolder(folder, matches);
  return typeof read === 'object' ? read : undefined;
}

/** Whether a security control still refuses to list `folder` (see `visit`). */
export function stillRefused(folder: string): boolean {
  try {
    readdirSync(folder);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A listing to walk: nothing for a folder that is gone, the whole folder for one unknown. */
const unlisted = (folder: string, read: Listing | Unlisted): Listing =>
  read === 'denied'
    ? deniedListing(folder, statOf(folder))
    : read === 'refused'
      ? REFUSED
      : read === 'unreadable'
        ? UNREADABLE
        : read === undefined
          ? NOTHING
          : unenterable(statOf(folder))
            ? DENIED
            : read;

/**
 * Whether a folder this user may list is one of its own that it may not enter (mode 0600): the
 * walk could name its entries but not look into them, and a server, as its owner, could make it
 * enterable again. It is masked whole.
 */
const unenterable = (info: Stats | undefined): boolean =>
  info !== undefined && info.uid === process.getuid?.() && (info.mode & constants.S_IXUSR) === 0;

/**
 * What to make of a folder this user may not list: masked whole where the server could still get
 * into it (entering it to open a name it guesses, or changing its permissions as its owner), else
 * passed over (another's folder it may not enter holds nothing it can reach).
 */
function deniedListing(folder: string, info: Stats | undefined): Listing {
  if (info?.uid === process.getuid?.()) return DENIED;
  // Not even looked at: the folder above it keeps this user out, after the walk listed it. Where
  // that folder is this user's (an ACL, or its mode changed meanwhile), its owner, the server,
  // could let itself in again: what lies below is unknown, and masking it is refused downstream.
  if (info === undefined)
    return statOf(dirname(folder))?.uid === process.getuid?.() ? DENIED : NOTHING;
  try {
    accessSync(folder, constants.X_OK);
    return DENIED;
  } catch {
    return NOTHING;
  }
}

/** How many folders the walk visits between two looks at the clock. */
const CLOCK_EVERY = 8;

/**
 * Visits every entry below `dir` without following symlinks, in slices of at most about
 * WALK_SLICE_MS between which the event loop runs; false when the budget ran out. A folder this
 * user may not list but the server could still get into (`deniedListing`) is passed to `add`
 * whole, since the search cannot tell what lies in it, and so is one that could not be read for
 * another reason (an error, not recorded); one that is gone is passed over. Indexed loops: a new
 * process runs this once per folder before the JIT has warmed up.
 */
export async function walk(dir: string, steps: WalkSteps, memory?: WalkMemory): Promise<boolean> {
  const pending = [dir];
  let sliceStart = performance.now();
  let sinceClock = 0;
  if (memory) memory.readAt = memory.cache.now();
  while (pending.length > 0) {
    const folder = pending.pop()!;
    const listing = memory
      ? visit(folder, steps.matches, memory)
      : unlisted(folder, readFolder(folder, steps.matches));
    if (!steps.spend(listing.count)) return false;
    // `folder`/`name` for a real path and an entry name (what `join` gives, without its parsing).
    const prefix = folder.endsWith('/') ? folder : `${folder}/`;
    const { dirs, matches } = listing;
    if (listing.denied) await steps.add(folder);
    for (let i = 0; i < matches.length; i++) await steps.add(prefix + matches[i]!);
    for (let i = 0; i < dirs.length; i++) {
      const path = prefix + dirs[i]!;
      if (!steps.skip(path)) pending.push(path);
    }
    if (++sinceClock < CLOCK_EVERY) continue;
    sinceClock = 0;
    if (performance.now() - sliceStart >= WALK_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
      if (memory) memory.readAt = memory.cache.now();
    }
  }
  return true;
}
