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
import { expand, gitConfigPaths } from './git-config-paths';
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
 * writable root, reached without a symlink). A symlink so named is refused: the server could
 * re-point or replace it, and what it points to is not kept. A `.git` is kept with what git reads
 * through it (`gitRepository`). `home` expands `~/` in a git config.
 */
export function workspaceTargets(
  path: string,
  writable: readonly string[],
  home: string | undefined,
): Result<WorkspaceTarget[], LaunchError> {
  const info = lstatOf(path);
  if (info === undefined) return ok([]);
  const name = basename(path) as WorkspaceName;
  if (info.isSymbolicLink()) {
    return err(
      refusal(
        `${path} is a symlink in a folder this server may write; Warden keeps ${name} read-only there, but the server could re-point or replace the symlink`,
        `replace the symlink by what it points to${name === '.git' ? ' (or by a file "gitdir: PATH")' : ''}, make that folder read-only for this server, or let the server write ${name} (an exception: warden servers edit NAME --unprotect ${name})`,
      ),
    );
  }
  const kept: WorkspaceTarget = { path, directory: info.isDirectory(), name };
  if (name !== '.git') return ok([kept]);
  const worktree = dirname(path);
  if (info.isDirectory()) return gitRepository(path, worktree, [kept], writable, home);
  if (!info.isFile()) return ok([kept]);
  // A worktree's or a submodule's pointer to its git folder.
  const named = namedFolder(path, /^gitdir: (.+)$/m, dirname(path), writable);
  if (!named.ok) return named;
  const gitDir = named.value;
  if (gitDir === undefined) return ok([kept]);
  return gitRepository(
    gitDir,
    worktree,
    [kept, { path: gitDir, directory: true, name }],
    writable,
    home,
  );
}

/**
 * The git folder `gitDir` kept (in `kept`) with what git reads through it: the shared folder its
 * `commondir` names (a worktree's repository), and the hooks folder and config files its configs
 * name (`git-config-paths.ts`), those that exist. One the server could reach through a symlink it
 * may re-point is refused.
 */
function gitRepository(
  gitDir: string,
  worktree: string,
  kept: WorkspaceTarget[],
  writable: readonly string[],
  home: string | undefined,
): Result<WorkspaceTarget[], LaunchError> {
  const named = namedFolder(`${gitDir}/commondir`, /^(.+)$/m, gitDir, writable);
  if (!named.ok) return named;
  const common = named.value;
  const dirs = common === undefined ? [gitDir] : [gitDir, common];
  if (common !== undefined) kept.push({ path: common, directory: true, name: '.git' });
  for (const dir of dirs) {
    for (const file of [`${dir}/config`, `${dir}/config.worktree`]) {
      const named = gitConfigPaths(file, home);
      const paths = [
        ...named.hooks.map((h) => expand(h, home)).map((h) => h && resolve(worktree, h)),
        ...named.includes,
      ];
      for (const p of paths) {
        if (p === undefined) continue;
        const link = symlinkOnTheWay(p, writable);
        if (link) return err(linkedRefusal(file, p, link));
        const info = lstatOf(p);
        if (info) kept.push({ path: realOf(p) ?? p, directory: info.isDirectory(), name: '.git' });
      }
    }
  }
  return ok(kept);
}

/**
 * The folder a file names (the first match of `pattern`, resolved against `base`) when it is one;
 * undefined otherwise; a refusal when the way there runs through a symlink the server may re-point.
 */
function namedFolder(
  file: string,
  pattern: RegExp,
  base: string,
  writable: readonly string[],
): Result<string | undefined, LaunchError> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, 4096);
  } catch {
    return ok(undefined);
  }
  const match = pattern.exec(text);
  if (!match) return ok(undefined);
  const named = resolve(base, match[1]!.trim());
  const link = symlinkOnTheWay(named, writable);
  if (link) return err(linkedRefusal(file, named, link));
  const dir = realOf(named);
  return ok(dir !== undefined && lstatOf(dir)?.isDirectory() ? dir : undefined);
}

/**
 * What the user's own git configs (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`) make git run
 * code from, inside a folder the server may write: the config files themselves, and the hooks
 * folder and included configs they name by an absolute or `~/` path. Every repository reads them.
 */
export function globalGitTargets(
  env: Readonly<Record<string, string | undefined>>,
  writable: readonly string[],
): Result<WorkspaceTarget[], LaunchError> {
  const home = env.HOME?.startsWith('/') ? env.HOME : undefined;
  const xdg = env.XDG_CONFIG_HOME?.startsWith('/')
    ? env.XDG_CONFIG_HOME
    : home && `${home}/.config`;
  const files = [home && `${home}/.gitconfig`, xdg && `${xdg}/git/config`];
  const kept: WorkspaceTarget[] = [];
  for (const file of files) {
    if (file === undefined || lstatOf(file) === undefined) continue;
    const named = gitConfigPaths(file, home);
    const hooks = named.hooks.map((h) => expand(h, home)).filter((h) => h?.startsWith('/'));
    for (const p of [file, ...(hooks as string[]), ...named.includes]) {
      const link = symlinkOnTheWay(p, writable);
      if (link) return err(linkedRefusal(file, p, link));
      const info = lstatOf(p);
      if (info) kept.push({ path: realOf(p) ?? p, directory: info.isDirectory(), name: '.git' });
    }
  }
  return ok(kept);
}

const realOf = (path: string): string | undefined => {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
};

const refusal = (message: string, remedy: string) => launchError('root-invalid', message, remedy);

/** A git file that names a path through a symlink the server could re-point. */
const linkedRefusal = (file: string, named: string, link: string) =>
  refusal(
    `${file} names ${named} through the symlink ${link}, which lies in a folder this server may write: it could re-point the symlink to a git folder or config of its own`,
    'replace the symlink by the folder it points to, make that folder read-only for this server, or let the server write .git (an exception: warden servers edit NAME --unprotect .git)',
  );

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
