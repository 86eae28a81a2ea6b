/**
 * The declared roots as Landlock rules, with the workspace files (workspace-files.ts) found in a
 * writable root kept read-only. Landlock rules only add access: a root granted write whole cannot
 * have a path inside taken back out. So such a root is granted read and execute, and so is every
 * folder on the way from it to a kept path; each other entry of those folders is granted write on
 * its own (a symlink nothing: what it points to is granted where it lies, or not at all). Next to
 * bubblewrap, which binds the kept paths read-only over a writable root, this costs the server
 * creating, removing and renaming entries directly in those folders, and write to an entry the
 * user adds there after the launch (landlock-gaps.ts). A kept path's own rules are the root's:
 * read and execute.
 */
import { type Dirent, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type LaunchError, launchError } from '../../../../app/contract/launch-error';
import { type Result, err, ok } from '../../../../app/result';
import type { ResolvedRoot } from '../filesystem-view';

/** More entries than this granted one by one: the launch is refused (a rule each, kept in memory). */
export const MAX_ENTRY_GRANTS = 2000;

/**
 * A launcher option and its path: read and execute, or every right. Both are opened without
 * following a symlink anywhere in the path, which the launcher refuses (landlock-exec.c).
 */
export type PathGrant = readonly ['--rxn' | '--rwn', string];

const within = (path: string, folder: string) =>
  path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);

/**
 * The rules for `roots`, each kept path (a real path, with the workspace name it is kept for) in a
 * writable root read-only; refused when a folder on the way cannot be listed or the entries
 * granted one by one are too many.
 */
export function rootGrants(
  roots: readonly ResolvedRoot[],
  keptFiles: readonly { path: string; name: string }[],
  list: (folder: string) => Dirent[] = (folder) => readdirSync(folder, { withFileTypes: true }),
): Result<PathGrant[], LaunchError> {
  const grants: PathGrant[] = [];
  const kept = keptFiles.map((k) => k.path);
  let entries = 0;
  for (const root of roots) {
    if (root.access !== 'write' || kept.some((k) => within(root.path, k))) {
      grants.push(['--rxn', root.path]);
      continue;
    }
    const inside = kept.filter((k) => k !== root.path && within(k, root.path));
    if (inside.length === 0) {
      grants.push(['--rwn', root.path]);
      continue;
    }
    grants.push(['--rxn', root.path]);
    const split = foldersOnTheWay(root.path, inside);
    const keptSet = new Set(inside);
    for (const folder of split) {
      let listed: Dirent[];
      try {
        listed = list(folder);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'unknown error';
        return err(
          launchError(
            'root-invalid',
            `${folder} holds a workspace file kept read-only, and Warden could not list it (${code}) to let the server write the rest of it entry by entry`,
            'let this user list it, declare narrower folders that do not contain it, or make bubblewrap usable',
          ),
        );
      }
      for (const entry of listed) {
        const path = join(folder, entry.name);
        if (split.has(path) || keptSet.has(path) || entry.isSymbolicLink()) continue;
        if (++entries > MAX_ENTRY_GRANTS) return tooMany(root.path, keptFiles, inside[0]!);
        grants.push(['--rwn', path]);
      }
    }
  }
  return ok(grants);
}

/** The folders from `root` down to each kept path's parent. */
function foldersOnTheWay(root: string, kept: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const path of kept) {
    for (let dir = dirname(path); within(dir, root) && !folders.has(dir); dir = dirname(dir)) {
      folders.add(dir);
      if (dir === root) break;
    }
  }
  return folders;
}

function tooMany(root: string, keptFiles: readonly { path: string; name: string }[], kept: string) {
  const name = keptFiles.find((k) => k.path === kept)?.name ?? kept;
  return err(
    launchError(
      'root-invalid',
      `${kept} is kept read-only in ${root}, which the Landlock sandbox does by letting the server write the other entries around it one by one, but there are more than ${MAX_ENTRY_GRANTS} of them`,
      `declare narrower folders, make bubblewrap usable, or let this server write ${name} (an exception: warden servers edit NAME --unprotect ${name})`,
    ),
  );
}
