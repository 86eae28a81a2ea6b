/**
 * Finds, when a sandbox is built, the host paths a server's hidden-path guards cover inside its
 * declared roots: `~/…` and absolute entries that exist below a root, and every file or folder
 * below a root whose name matches a bare pattern (`.env`, `.env.*`). Each backend masks what this
 * returns; a root that lies inside a hidden path is refused rather than shown.
 */
import { type Stats, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { expandHome, isNamePattern, nameMatcher } from '../../app/policy/guards';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import { type Result, err, ok } from '../../app/result';
import type { LaunchPlan } from './backend';
import { type HiddenPathsCache, type SettledRoot, searchReader } from './hidden-paths-cache';
import { MAX_REREAD_FOLDERS } from './hidden-paths-ahead';
import { repointableRefusal, symlinkOnTheWay } from './repointable-links';
import { type WalkMemory, listAgain, stillRefused, walk } from './hidden-paths-walk';

export interface HiddenTarget {
  /** The host path (its real path), inside a declared root. */
  path: string;
  directory: boolean;
  /**
   * Hidden by its declared path (`~/.config/gh`), not by a name the search finds wherever it is,
   * or masked whole for want of a listing: what holds it must not be moved while the server runs
   * (see `pinnedFolders`).
   */
  byPath?: true;
}

/**
 * How many entries a name-pattern walk visits before the launch is refused (fail closed). A
 * developer's whole home is a few hundred thousand to a million entries; the walk reads about a
 * million entries a second, so the ceiling bounds a launch to a few seconds.
 */
export const MAX_WALK_ENTRIES = 3_000_000;

/** The real path of `path`, or undefined when it cannot be resolved (missing, a loop, no access). */
const realOf = (path: string): string | undefined => {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
};

const lstatOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * Why a path to hide that cannot be resolved refuses the launch, or undefined when there is
 * nothing to hide: a dangling symlink, or a declared path that does not exist (`seen` false). One
 * the walk found and that is gone (moved while searched), or that cannot be resolved (a folder on
 * the way this user may list but not enter, a path over the system's length limit), could be
 * reached by a server that undoes what hides it: it is refused rather than left unmasked.
 */
function unresolvable(path: string, seen: boolean): LaunchError | undefined {
  let code: string;
  try {
    realpathSync.native(path);
    code = 'ECHANGED';
  } catch (e) {
    code = (e as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
  }
  if (code === 'ENOENT') {
    const info = lstatOf(path);
    if (info?.isSymbolicLink() || (info === undefined && !seen)) return undefined;
  }
  const moved = code === 'ENOENT' || code === 'ECHANGED';
  return launchError(
    'root-invalid',
    moved
      ? `the hidden path ${path} was moved or removed while Warden searched for hidden paths, so it could not be masked`
      : `the hidden path ${path} could not be resolved to be masked (${code})`,
    moved
      ? 'start the server again; if a running server keeps moving it, stop that server'
      : 'let this user enter every folder on the way to it (chmod u+x) and keep its path under the system’s length limit, or declare narrower folders',
  );
}

/** Whether `path` is no folder, or one this user may list. */
const listable = (path: string): boolean => {
  if (!lstatOf(path)?.isDirectory()) return true;
  try {
    readdirSync(path);
    return true;
  } catch {
    return false;
  }
};

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

export interface SearchOptions {
  cache?: HiddenPathsCache;
  server?: string;
  /** The roots the server may write (real paths), where a symlink could be re-pointed. */
  writable?: readonly string[];
  /**
   * Names to find in the same walk for another purpose (workspace files, policy-paths.ts), each
   * match passed to `keep`, which may refuse the launch; a folder so named that cannot be listed
   * is masked whole instead, as any such folder is.
   */
  workspace?: { names: readonly string[]; keep: (path: string) => LaunchError | undefined };
}

/**
 * The hidden paths present inside `roots` (real paths), deepest last. Symlinks are not followed
 * by the walk; a hidden entry that is a symlink is masked at its target when that target is
 * itself inside a root, since that is what a read through it would show. With `options.cache`,
 * folders unchanged since the previous search are taken from its records instead of being read;
 * the check ahead of this process serves its first search only, however that search ends.
 */
export async function findHiddenTargets(
  roots: readonly string[],
  hidden: readonly string[],
  home: string | undefined,
  maxEntries = MAX_WALK_ENTRIES,
  options: SearchOptions = {},
): Promise<Result<HiddenTarget[], LaunchError>> {
  try {
    return await searchHidden(roots, hidden, home, maxEntries, options);
  } finally {
    options.cache?.spendAhead();
  }
}

async function searchHidden(
  roots: readonly string[],
  hidden: readonly string[],
  home: string | undefined,
  maxEntries: number,
  options: SearchOptions,
): Promise<Result<HiddenTarget[], LaunchError>> {
  const found = new Map<string, HiddenTarget>();
  let unresolved: LaunchError | undefined;
  // Synchronous: a few dozen calls per launch, where a thread-pool round trip each costs a new
  // process (and a busy core's event loop) more than the calls themselves.
  const hiddenName = nameMatcher(hidden.filter(isNamePattern));
  const workspaceName = nameMatcher(options.workspace?.names ?? []);
  const add = (candidate: string, seen = true) => {
    const name = basename(candidate);
    if (seen && options.workspace && workspaceName(name) && !hiddenName(name)) {
      if (listable(candidate)) {
        unresolved ??= options.workspace.keep(candidate);
        return Promise.resolve();
      }
      return addHidden(candidate, seen, true);
    }
    // Found, but matching no name: a folder masked whole since it cannot be listed. What holds it
    // is pinned: moved away, it would take the mask with it and bring a folder of the server's.
    return addHidden(candidate, seen, seen && !hiddenName(name));
  };
  const addHidden = (candidate: string, seen: boolean, pin: boolean) => {
    const real = realOf(candidate);
    if (real === undefined) unresolved ??= unresolvable(candidate, seen);
    if (real === undefined || !roots.some((r) => within(real, r))) return Promise.resolve();
    // A matching name that is a symlink masks what it points to, which need not match: the
    // symlink must not be one the server could re-point before its next launch.
    const link = seen && real !== candidate && symlinkOnTheWay(candidate, options.writable ?? []);
    if (link) unresolved ??= repointableRefusal(`the hidden path ${candidate}`, link);
    const info = lstatOf(real);
    const byPath = !seen || pin || found.get(real)?.byPath;
    if (info) {
      found.set(real, { path: real, directory: info.isDirectory(), ...(byPath && { byPath }) });
    }
    return Promise.resolve();
  };
  const patterns = [
    ...new Set([...hidden.filter(isNamePattern), ...(options.workspace?.names ?? [])]),
  ];
  for (const entry of hidden.filter((p) => !isNamePattern(p))) {
    const expanded = expandHome(entry, home);
    if (expanded === undefined) continue;
    const declared = resolve(expanded);
    const link = symlinkOnTheWay(declared, options.writable ?? []);
    if (link) return err(repointableRefusal(`the hidden path ${entry}`, link));
    const real = realOf(declared) ?? declared;
    const inside = roots.find((r) => within(r, real) && r !== '/');
    if (inside) {
      return err(
        launchError(
          'root-invalid',
          `root "${inside}" lies inside the hidden path ${entry}`,
          `declare a folder outside it, or un-hide ${entry} for this server (an exception)`,
        ),
      );
    }
    if (roots.some((r) => within(real, r))) await add(real, false);
  }
  if (patterns.length > 0) {
    // A folder masked whole shows nothing inside it: the walk need not read it.
    const masked = new Set([...found.values()].filter((t) => t.directory).map((t) => t.path));
    const searched = await searchNames(roots, patterns, masked, maxEntries, add, options);
    if (!searched.ok) return searched;
  }
  if (unresolved) return err(unresolved);
  // Shallow first; an entry inside a masked folder is already hidden (and no longer exists there).
  const sorted = [...found.values()].sort((a, b) => a.path.length - b.path.length);
  const kept: HiddenTarget[] = [];
  for (const t of sorted) {
    if (!kept.some((k) => k.directory && t.path !== k.path && within(t.path, k.path))) kept.push(t);
  }
  return ok(kept);
}

/**
 * The name-pattern part of the search: walks each root (from the cache's records where it has
 * them) and passes every entry whose name matches to `add`. Where the shell front's check ahead
 * shows every folder of the server's last search unchanged since a search that it had confirmed
 * (hidden-paths-ahead.ts), but the few that search read afresh, and those few still hold the same
 * sub-folders and matching names, that search's matches are passed instead, without a walk.
 */
async function searchNames(
  roots: readonly string[],
  patterns: readonly string[],
  masked: ReadonlySet<string>,
  maxEntries: number,
  add: (candidate: string) => Promise<void>,
  options: SearchOptions,
): Promise<Result<void, LaunchError>> {
  const { cache, server } = options;
  const tooMany = (root: string) =>
    err(
      launchError(
        'root-invalid',
        `root "${root}" holds more than ${maxEntries} entries to search for hidden files (${patterns.join(', ')}); the search stopped there rather than leave one unmasked`,
        `declare a narrower folder as the root, or hide a big folder inside it (it is then masked whole and not searched), or un-hide ${patterns.join(' and ')} for this server (an exception)`,
      ),
    );
  let budget = maxEntries;
  const inputs = JSON.stringify([
    roots,
    [...patterns].sort(),
    [...masked].sort(),
    maxEntries,
    searchReader(),
  ]);
  const settled = cache && server !== undefined ? cache.settled(server, inputs) : undefined;
  const entries = settled && entriesNow(settled, patterns);
  if (settled && entries) {
    for (let i = 0; i < settled.length; i++) {
      const r = settled[i]!;
      cache?.used(r.root, patterns);
      if ((budget -= entries[i]!) < 0) return tooMany(r.root);
      for (const match of r.matches) await add(match);
    }
    return ok(undefined);
  }
  const recorded: string[] = [];
  const walked: SettledRoot[] = [];
  const search = { changed: false, reread: 0, odd: false };
  for (const root of roots) {
    const memory: WalkMemory | undefined = cache && {
      cache,
      known: await cache.load(root, patterns),
      seen: new Map(),
      changed: false,
    };
    const result: SettledRoot = { root, entries: 0, matches: [], refused: [], reread: [] };
    const steps = {
      matches: nameMatcher(patterns),
      skip: (path: string) => masked.has(path),
      add: (candidate: string) => {
        result.matches.push(candidate);
        return add(candidate);
      },
      spend: (n: number) => {
        result.entries += n;
        return (budget -= n) >= 0;
      },
    };
    if (!(await walk(root, steps, memory))) return tooMany(root);
    walked.push(result);
    // Records of folders gone or changed need no write: they no longer match, so go unused.
    if (cache && memory?.changed) {
      cache.store(root, patterns, memory.seen);
    }
    if (memory) {
      for (const [folder, record] of memory.seen) {
        recorded.push(folder);
        if (record.refused) result.refused.push(folder);
      }
      for (const [folder, { count, dirs, matches }] of memory.reread ?? []) {
        result.reread.push({ folder, count, dirs, matches });
      }
      search.changed ||= memory.changed;
      search.reread += result.reread.length;
      search.odd ||= memory.odd === true;
    }
  }
  if (cache && server !== undefined) {
    cache.listFolders(server, recorded, search.changed);
    if (!search.odd && search.reread <= MAX_REREAD_FOLDERS) cache.settle(server, inputs, walked);
  }
  return ok(undefined);
}

/**
 * The entries below each root of a settled search as they are now, its folders read afresh
 * listed again; undefined when a folder a security control refused may now be read, or one read
 * afresh is gone or holds another sub-folder or matching name than it did: the search is then
 * made again. (An entry that matches no pattern and is no folder changes nothing the search finds.)
 */
function entriesNow(
  settled: readonly SettledRoot[],
  patterns: readonly string[],
): number[] | undefined {
  const matches = nameMatcher(patterns);
  const entries: number[] = [];
  for (const r of settled) {
    if (!r.refused.every(stillRefused)) return undefined;
    let count = r.entries;
    for (const was of r.reread) {
      const now = listAgain(was.folder, matches);
      if (now === undefined) return undefined;
      if (!sameNames(now.dirs, was.dirs) || !sameNames(now.matches, was.matches)) return undefined;
      count += now.count - was.count;
    }
    entries.push(count);
  }
  return entries;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = [...b].sort();
  return [...a].sort().every((name, i) => name === sorted[i]);
}

/**
 * The plan field that has the spawner write the search's new records once the process is spawned
 * (none without a cache): the write never delays a launch, and is skipped when nothing changed.
 */
export function writeRecordsAfterSpawn(
  cache: HiddenPathsCache | undefined,
): Pick<LaunchPlan, 'afterSpawn'> {
  return cache ? { afterSpawn: () => cache.write() } : {};
}
