/**
 * The declared roots as Landlock rules, with the hidden paths (hidden-paths.ts) inside them out of
 * reach and the workspace files (workspace-files.ts) of a writable root kept read-only. Landlock
 * rules only add access: a root granted whole cannot have a path inside taken back out. So the
 * folders on the way from a root to such a path are granted less, and each of their other entries
 * is granted on its own (a symlink nothing: what it points to is granted where it lies, or not at
 * all). A folder on the way to a hidden path may only be listed, and a hidden path gets no rule at
 * all (its name still shows in a listing; bubblewrap shows it empty instead). A folder on the way
 * only to kept paths is read and execute, as are the kept paths, which inherit it. Next to
 * bubblewrap this costs the server creating, removing and renaming entries directly in those
 * folders, and access to an entry the user adds there after the launch (landlock-gaps.ts).
 */
import { type Dirent, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type LaunchError, launchError } from '../../../../app/contract/launch-error';
import { type Result, err, ok } from '../../../../app/result';
import { within } from '../../git-repository';
import type { ResolvedRoot } from '../filesystem-view';

/**
 * More rules than this for the folders on the way and the entries granted one by one: the launch
 * is refused (the launcher takes 4,096 paths in all).
 */
export const MAX_ENTRY_GRANTS = 2000;

/**
 * A launcher option and its path: list only, read and execute, or every right. Each is opened
 * without following a symlink anywhere in the path, which the launcher refuses (landlock-exec.c).
 */
export type PathGrant = readonly ['--lsn' | '--rxn' | '--rwn', string];

/** What a root holds that it may not simply grant whole: real paths, as the searches found them. */
export interface RootExceptions {
  /** Workspace files kept read-only in a writable root, with the name each is kept for. */
  kept: readonly { path: string; name: string }[];
  /** Paths the server may not read at all. */
  hidden: readonly string[];
}

export interface RootRules {
  grants: PathGrant[];
  /**
   * The folders of writable roots that take no new entry because they lie on the way to a path
   * kept read-only or hidden: what a server's "Permission denied" there comes from.
   */
  closed: string[];
}

/**
 * The rules for `roots` with their exceptions; refused when a folder on the way cannot be listed
 * or the entries granted one by one are too many.
 */
export function rootGrants(
  roots: readonly ResolvedRoot[],
  exceptions: RootExceptions,
  list: (folder: string) => Dirent[] = (folder) => readdirSync(folder, { withFileTypes: true }),
): Result<RootRules, LaunchError> {
  const grants: PathGrant[] = [];
  const closed: string[] = [];
  const kept = exceptions.kept.map((k) => k.path);
  let entries = 0;
  // A path inside a hidden one is out of reach with it: only the outermost are kept out.
  const hiddenAll = exceptions.hidden.filter(
    (h) => !exceptions.hidden.some((o) => o !== h && within(h, o)),
  );
  for (const root of roots) {
    // A root inside a hidden path is refused by the search; were one to get here, it gets nothing.
    if (hiddenAll.some((h) => within(root.path, h))) continue;
    const readOnly = (path: string) => root.access !== 'write' || kept.some((k) => within(path, k));
    const hidden = hiddenAll.filter((h) => within(h, root.path));
    const keptInside =
      root.access === 'write'
        ? kept.filter(
            (k) => k !== root.path && within(k, root.path) && !hidden.some((h) => within(k, h)),
          )
        : [];
    if (hidden.length === 0 && keptInside.length === 0) {
      grants.push([readOnly(root.path) ? '--rxn' : '--rwn', root.path]);
      continue;
    }
    const toHidden = foldersOnTheWay(root.path, hidden);
    const toKept = foldersOnTheWay(root.path, keptInside);
    const isHidden = new Set(hidden);
    // What a folder on the way grants everything below it that has no rule of its own.
    const inherited = (folder: string) => (toHidden.has(folder) ? 'none' : 'read');
    const folders = new Set([...toHidden, ...toKept]);
    entries += folders.size;
    if (entries > MAX_ENTRY_GRANTS) return tooMany(root.path, exceptions);
    for (const folder of folders) {
      grants.push([inherited(folder) === 'none' ? '--lsn' : '--rxn', folder]);
      if (!readOnly(folder)) closed.push(folder);
      let listed: Dirent[];
      try {
        listed = list(folder);
      } catch (e) {
        return unlisted(folder, (e as NodeJS.ErrnoException).code ?? 'unknown error');
      }
      for (const entry of listed) {
        const path = join(folder, entry.name);
        if (toHidden.has(path) || toKept.has(path) || isHidden.has(path)) continue;
        if (entry.isSymbolicLink()) continue;
        const want = readOnly(path) ? '--rxn' : '--rwn';
        if (want === '--rxn' && inherited(folder) === 'read') continue;
        if (++entries > MAX_ENTRY_GRANTS) return tooMany(root.path, exceptions);
        grants.push([want, path]);
      }
    }
  }
  return ok({ grants, closed: closed.sort() });
}

/** The folders from `root` down to each path's parent. */
function foldersOnTheWay(root: string, paths: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); within(dir, root) && !folders.has(dir); dir = dirname(dir)) {
      folders.add(dir);
      if (dir === root) break;
    }
  }
  return folders;
}

function unlisted(folder: string, code: string) {
  return err(
    launchError(
      'root-invalid',
      `${folder} holds a path the sandbox keeps read-only or hides, and Warden could not list it (${code}) to grant the rest of it entry by entry`,
      'let this user list it, declare narrower folders that do not contain it, or make bubblewrap usable',
    ),
  );
}

function tooMany(root: string, exceptions: RootExceptions) {
  const kept = exceptions.kept.find((k) => within(k.path, root));
  return err(
    launchError(
      'root-invalid',
      `${root} holds paths the sandbox keeps read-only or hides, which the Landlock sandbox does by granting the entries around them one by one, but there are more than ${MAX_ENTRY_GRANTS} of them`,
      `declare narrower folders, or make bubblewrap usable${kept ? `, or let this server write ${kept.name} (an exception: warden servers edit NAME --unprotect ${kept.name})` : ''}`,
    ),
  );
}
