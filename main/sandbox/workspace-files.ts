/**
 * What a sandbox keeps of the workspace files (app/policy/workspace-files.ts) that the hidden-path
 * search finds by name below a folder the server may write: each is bound read-only onto itself,
 * a mount point, which can be neither written, renamed nor removed.
 */
import { type Stats, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import type { WorkspaceName } from '../../app/policy/workspace-files';
import { type Result, err, ok } from '../../app/result';
import { symlinkOnTheWay } from './repointable-links';

export interface WorkspaceTarget {
  /** The host path (its real path), inside a root the server may write. */
  path: string;
  directory: boolean;
  /** The workspace name it is kept for. */
  name: WorkspaceName;
}

const lstatOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * What to keep of the workspace entry `path` (its name is a workspace name; it lies below a
 * writable root, reached without a symlink). A symlink so named is left alone: a server could
 * replace it with a file as it could create one where there was none, which no mount prevents. A
 * `.git` file (a worktree's or a submodule's pointer) is kept with the git folder it names.
 */
export function workspaceTargets(
  path: string,
  writable: readonly string[],
): Result<WorkspaceTarget[], LaunchError> {
  const info = lstatOf(path);
  if (info === undefined || info.isSymbolicLink()) return ok([]);
  const name = basename(path) as WorkspaceName;
  const kept: WorkspaceTarget = { path, directory: info.isDirectory(), name };
  if (name !== '.git' || !info.isFile()) return ok([kept]);
  const gitDir = pointedGitDir(path, writable);
  if (gitDir instanceof Error) {
    return err(
      launchError(
        'root-invalid',
        `${path} names its git folder through the symlink ${gitDir.message}, which lies in a folder this server may write: it could re-point the symlink to a git folder (and config) of its own`,
        `replace the symlink by the folder it points to, make that folder read-only for this server, or let the server write .git (an exception: warden servers edit NAME --unprotect .git)`,
      ),
    );
  }
  return ok(gitDir === undefined ? [kept] : [kept, { path: gitDir, directory: true, name }]);
}

/**
 * The folder a `.git` file names (`gitdir: PATH`), when it is one; undefined otherwise; an Error
 * naming the symlink when the way there runs through one the server could re-point.
 */
function pointedGitDir(file: string, writable: readonly string[]): string | Error | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, 4096);
  } catch {
    return undefined;
  }
  const match = /^gitdir: (.+)$/m.exec(text);
  if (!match) return undefined;
  const named = resolve(dirname(file), match[1]!.trim());
  const link = symlinkOnTheWay(named, writable);
  if (link) return new Error(link);
  try {
    const dir = realpathSync.native(named);
    return lstatOf(dir)?.isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

/**
 * Whether a workspace name at `path` is kept: it lies below a root the server may write, and not
 * inside a `node_modules` folder there (installed packages, which no editor or git runs from, and
 * which an install must be able to remove).
 */
export function inWorkspace(path: string, writable: readonly string[]): boolean {
  return writable.some(
    (w) => within(path, w) && !path.slice(w.length).split('/').includes('node_modules'),
  );
}

/**
 * The workspace targets a sandbox binds, shallow first: those inside a root the server may write
 * (a `.git` file may name a folder elsewhere), not inside a folder masked whole (nothing is there
 * to bind), nor inside one already kept read-only.
 */
export function keptWorkspace(
  found: readonly WorkspaceTarget[],
  masked: readonly { path: string; directory: boolean }[],
  writable: readonly string[],
): WorkspaceTarget[] {
  const byPath = new Map(found.map((t) => [t.path, t]));
  const sorted = [...byPath.values()].sort((a, b) => a.path.length - b.path.length);
  const maskedDirs = masked.filter((m) => m.directory).map((m) => m.path);
  const kept: WorkspaceTarget[] = [];
  for (const t of sorted) {
    if (!writable.some((w) => within(t.path, w))) continue;
    if (masked.some((m) => m.path === t.path) || maskedDirs.some((d) => within(t.path, d)))
      continue;
    if (!kept.some((k) => k.directory && t.path !== k.path && within(t.path, k.path))) kept.push(t);
  }
  return kept;
}
