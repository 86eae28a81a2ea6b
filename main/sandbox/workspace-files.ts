/**
 * What a sandbox keeps of the workspace files (app/policy/workspace-files.ts) that the hidden-path
 * search finds by name below a folder the server may write: each is bound read-only onto itself,
 * a mount point, which can be neither written, renamed nor removed.
 */
import { basename, dirname } from 'node:path';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import { type WorkspaceName, foldName, workspaceNameOf } from '../../app/policy/workspace-files';
import { type Result, err, ok } from '../../app/result';
import {
  type GitContext,
  type KeptPath,
  gitRepository,
  isBareRepository,
  lstatOf,
  namedFolder,
  realOf,
  within,
} from './git-repository';

export interface WorkspaceTarget {
  /** The host path (its real path), inside a root the server may write. */
  path: string;
  directory: boolean;
  /** The workspace name it is kept for. */
  name: WorkspaceName;
}

/**
 * What to keep of the entry `path` that the walk found by a workspace name (or `HEAD`, for a bare
 * repository): in a writable folder, the entry itself; for a repository anywhere (above or
 * beside the writable folders too), what git reads through it that lies in one (git-repository.ts).
 * A symlink so named in a writable folder is refused: the server could re-point or replace it,
 * and what it points to is not kept. A dangling one is left alone (there is nothing to keep).
 */
export function workspaceTargets(
  path: string,
  ctx: GitContext,
): Result<WorkspaceTarget[], LaunchError> {
  const info = lstatOf(path);
  if (info === undefined) return ok([]);
  const name = basename(path);
  // As a case-insensitive file system finds it: there `.GIT` is a repository too.
  const kind = foldName(name);
  const writable = inWorkspace(path, ctx.writable);
  const git = (kept: Result<KeptPath[], LaunchError>, self: WorkspaceTarget[] = []) =>
    kept.ok ? ok([...self, ...kept.value.map((k) => ({ ...k, name: '.git' as const }))]) : kept;
  if (kind === 'head') {
    const dir = dirname(path);
    if (foldName(basename(dir)) === '.git' || !isBareRepository(dir)) return ok([]);
    return git(gitRepository(dir, dir, ctx));
  }
  if (info.isSymbolicLink()) {
    if (!writable || realOf(path) === undefined) return ok([]);
    return err(
      launchError(
        'root-invalid',
        `${path} is a symlink in a folder this server may write; Warden keeps ${name} read-only there, but the server could re-point or replace the symlink`,
        `replace the symlink by what it points to${kind === '.git' ? ' (or by a file "gitdir: PATH")' : ''}, or make that folder read-only for this server`,
      ),
    );
  }
  if (kind !== '.git') {
    const listed = workspaceNameOf(name) ?? (name as WorkspaceName);
    return ok(writable ? [{ path, directory: info.isDirectory(), name: listed }] : []);
  }
  const worktree = dirname(path);
  if (info.isDirectory()) return git(gitRepository(path, worktree, ctx));
  const self: WorkspaceTarget[] = writable ? [{ path, directory: false, name: '.git' }] : [];
  if (!info.isFile()) return ok(self);
  // A worktree's or a submodule's pointer to its git folder.
  const named = namedFolder(path, /^gitdir: (.+)$/m, worktree, ctx);
  if (!named.ok) return named;
  if (named.value === undefined) return ok(self);
  return git(gitRepository(named.value, worktree, ctx), self);
}

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
 * The workspace targets a sandbox binds, shallow first: those in a writable folder (`inWorkspace`;
 * a repository may name paths elsewhere), not inside a folder masked whole (nothing is there to
 * bind), nor inside one already kept read-only.
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
    if (!inWorkspace(t.path, writable)) continue;
    if (masked.some((m) => m.path === t.path) || maskedDirs.some((d) => within(t.path, d)))
      continue;
    if (!kept.some((k) => k.directory && t.path !== k.path && within(t.path, k.path))) kept.push(t);
  }
  return kept;
}
