/**
 * What git reads through a repository, which a sandbox keeps read-only where it lies in a folder
 * the server may write: the git folder (a `.git` folder, the one a `.git` file names, a bare
 * repository), the shared repository its `commondir` names, the hooks folder and the configs its
 * configs name (`git-config-paths.ts`); and the user's own git configs. A path named there that
 * does not exist in such a folder refuses the launch (the server could create it), and so does
 * one reached through a symlink it could re-point.
 */
import {
  type Stats,
  accessSync,
  constants,
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import { type Result, err, ok } from '../../app/result';
import { expand, gitConfigPaths } from './git-config-paths';
import { symlinkOnTheWay } from './repointable-links';

export interface GitContext {
  /** The roots the server may write (real paths). */
  writable: readonly string[];
  home: string | undefined;
  /** The workspace names kept read-only: a missing path inside one such is no refusal. */
  keptNames: readonly string[];
  /** Relative `core.hooksPath` values of the user's own configs, applied in every worktree. */
  globalHooks: readonly string[];
}

/** A path kept read-only: a file or a folder. */
export interface KeptPath {
  path: string;
  directory: boolean;
}

const EXCEPTION =
  'let the server write .git (an exception: warden servers edit NAME --unprotect .git)';

export const lstatOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

export const realOf = (path: string): string | undefined => {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
};

export const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

const inWritable = (path: string, ctx: GitContext) => ctx.writable.some((w) => within(path, w));

const searchable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Whether `dir` is a repository git would use as it is, told as git tells one: a `HEAD` (a file
 * or a symlink), and `objects` and `refs` it may search (`access(X_OK)`, which a file with its
 * execute bit passes too), in `dir` or in the folder its `commondir` names.
 */
export const isBareRepository = (dir: string): boolean => {
  const head = lstatOf(`${dir}/HEAD`);
  if (head?.isFile() !== true && head?.isSymbolicLink() !== true) return false;
  let common = dir;
  if (lstatOf(`${dir}/commondir`) !== undefined) {
    try {
      common = resolve(dir, readFileSync(`${dir}/commondir`, 'utf8').trim());
    } catch {
      return false;
    }
  }
  return searchable(`${common}/objects`) && searchable(`${common}/refs`);
};

/**
 * The git folder `gitDir` (whose worktree is `worktree`, if any) and what git reads through it,
 * those that exist; a refusal for a named path the server could create or re-point.
 */
export function gitRepository(
  gitDir: string,
  worktree: string,
  ctx: GitContext,
): Result<KeptPath[], LaunchError> {
  const kept: KeptPath[] = [{ path: gitDir, directory: true }];
  const common = namedFolder(`${gitDir}/commondir`, /^(.+)$/m, gitDir, ctx);
  if (!common.ok) return common;
  const dirs = [gitDir];
  if (common.value !== undefined) {
    dirs.push(common.value);
    kept.push({ path: common.value, directory: true });
  }
  const files = dirs.flatMap((d) => [`${d}/config`, `${d}/config.worktree`]);
  const configs = files.map((file) => ({ file, ...gitConfigPaths(file, ctx.home) }));
  const tooMany = configs.find((c) => c.tooMany);
  if (tooMany) return err(tooManyRefusal(tooMany.file));
  // Relative hooks are found from the worktree: `core.worktree` (against the git folder) if set.
  const set = configs.flatMap((c) => c.worktrees.map((w) => resolve(dirname(c.file), w)));
  const base = set.at(-1) ?? worktree;
  const named = [
    ...configs.flatMap((c) => c.hooks.map((h) => ({ file: c.file, path: h, folder: true }))),
    ...ctx.globalHooks.map((h) => ({ file: 'your own git config', path: h, folder: true })),
    ...configs.flatMap((c) => c.includes.map((i) => ({ file: c.file, path: i, folder: false }))),
  ];
  for (const n of named) {
    const path = expand(n.path, ctx.home);
    if (path === undefined) continue;
    const one = keptNamed(n.file, isAbsolute(path) ? path : resolve(base, path), n.folder, ctx);
    if (!one.ok) return one;
    kept.push(...one.value);
  }
  return ok(kept);
}

/**
 * What the user's own git configs (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`) make git read in
 * a writable folder: the files themselves and what they name by an absolute or `~/` path (relative
 * hooks are returned, to be found in each worktree). Every repository reads them. One that does
 * not exist is not refused: creating a new one is as creating any workspace file (README).
 */
export function globalGit(
  env: Readonly<Record<string, string | undefined>>,
  writable: readonly string[],
  keptNames: readonly string[],
): Result<{ kept: KeptPath[]; hooks: string[]; absent: string[] }, LaunchError> {
  const home = env.HOME?.startsWith('/') ? env.HOME : undefined;
  const xdg = env.XDG_CONFIG_HOME?.startsWith('/')
    ? env.XDG_CONFIG_HOME
    : home && `${home}/.config`;
  const ctx: GitContext = { writable, home, keptNames, globalHooks: [] };
  const out = { kept: [] as KeptPath[], hooks: [] as string[], absent: [] as string[] };
  // GIT_CONFIG_GLOBAL, where set, is the one global config git reads.
  const files = env.GIT_CONFIG_GLOBAL?.startsWith('/')
    ? [env.GIT_CONFIG_GLOBAL]
    : [home && `${home}/.gitconfig`, xdg && `${xdg}/git/config`];
  for (const file of files) {
    if (file === undefined) continue;
    if (lstatOf(file) === undefined) {
      // One the server could create is watched for while it runs (workspace-watch.ts).
      if (inWritable(file, ctx)) out.absent.push(file);
      continue;
    }
    const self = keptNamed(file, file, false, ctx);
    if (!self.ok) return self;
    out.kept.push(...self.value);
    const named = gitConfigPaths(file, home);
    if (named.tooMany) return err(tooManyRefusal(file));
    for (const h of named.hooks.map((x) => expand(x, home))) {
      if (h === undefined) continue;
      if (!isAbsolute(h)) {
        out.hooks.push(h);
        continue;
      }
      const one = keptNamed(file, h, true, ctx);
      if (!one.ok) return one;
      out.kept.push(...one.value);
    }
    for (const path of named.includes) {
      const one = keptNamed(file, path, false, ctx);
      if (!one.ok) return one;
      out.kept.push(...one.value);
    }
  }
  return ok(out);
}

/**
 * A path the git file `file` names: kept when it exists; refused when it does not and lies in a
 * writable folder, or is reached through a symlink there; nothing otherwise.
 */
function keptNamed(
  file: string,
  path: string,
  folder: boolean,
  ctx: GitContext,
): Result<KeptPath[], LaunchError> {
  const link = symlinkOnTheWay(path, ctx.writable);
  if (link) return err(linkedRefusal(file, path, link));
  const info = lstatOf(path);
  const real = realOf(path);
  if (info && real !== undefined) {
    return ok([{ path: real, directory: lstatOf(real)?.isDirectory() === true }]);
  }
  // Missing, or a symlink to what is missing: what the server could create is the end of it.
  const end = info ? linkEnd(path) : path;
  if (end === undefined || !inWritable(end, ctx) || insideKept(end, ctx)) return ok([]);
  return err(
    launchError(
      'root-invalid',
      `${file} names ${path}, which does not exist, in a folder this server may write: git would run or read what the server put there`,
      `create it (an empty ${folder ? 'folder' : 'file'}), remove the setting, make that folder read-only for this server, or ${EXCEPTION}`,
    ),
  );
}

/** Where a chain of symlinks ends, when it ends at a path that does not exist. */
function linkEnd(path: string): string | undefined {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    const info = lstatOf(at);
    if (info === undefined) return at;
    if (!info.isSymbolicLink()) return undefined;
    try {
      at = resolve(dirname(at), readlinkSync(at));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether a missing `path` lies inside an existing folder kept read-only by its name (`.git`,
 * `.husky`) below a writable root: the server cannot create it there.
 */
function insideKept(path: string, ctx: GitContext): boolean {
  const root = ctx.writable.find((w) => within(path, w));
  if (root === undefined) return false;
  const parts = path.slice(root.length).split('/').filter(Boolean);
  if (parts.includes('node_modules')) return false;
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = at === '/' ? `/${part}` : `${at}/${part}`;
    if (ctx.keptNames.includes(part) && lstatOf(at)?.isDirectory()) return true;
  }
  return false;
}

const tooManyRefusal = (file: string) =>
  launchError(
    'root-invalid',
    `${file} includes more git config files than Warden reads, so it cannot tell what git would run from the folders this server may write`,
    `include fewer files, make those folders read-only for this server, or ${EXCEPTION}`,
  );

/**
 * The git folder a file names (the first match of `pattern`, against `base`): its real path when
 * it exists; a refusal when it does not and lies in a writable folder (the server could make it),
 * or is reached through a symlink there; undefined when the file names none.
 */
export function namedFolder(
  file: string,
  pattern: RegExp,
  base: string,
  ctx: GitContext,
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
  const kept = keptNamed(file, named, true, ctx);
  if (!kept.ok) return kept;
  const dir = kept.value[0];
  return ok(dir?.directory ? dir.path : undefined);
}

/** A git file that names a path through a symlink the server could re-point. */
const linkedRefusal = (file: string, named: string, link: string) =>
  launchError(
    'root-invalid',
    `${file} names ${named} through the symlink ${link}, which lies in a folder this server may write: it could re-point the symlink to a git folder or config of its own`,
    `replace the symlink by the folder it points to, make that folder read-only for this server, or ${EXCEPTION}`,
  );

/**
 * The repository git finds for a folder by looking upward from it (a `.git` in it or above it),
 * or undefined: its git folder and worktree. A `.git` file is followed to the folder it names.
 */
export function enclosingRepository(
  folder: string,
): { gitDir: string; worktree: string } | undefined {
  for (let dir = dirname(folder); ; dir = dirname(dir)) {
    const dotGit = dir === '/' ? '/.git' : `${dir}/.git`;
    const info = lstatOf(dotGit);
    if (info) {
      const gitDir = info.isFile() ? pointedBy(dotGit) : realOf(dotGit);
      return gitDir === undefined ? undefined : { gitDir, worktree: dir };
    }
    if (dir === '/') return undefined;
  }
}

const pointedBy = (file: string): string | undefined => {
  try {
    const match = /^gitdir: (.+)$/m.exec(readFileSync(file, 'utf8').slice(0, 4096));
    return match ? realOf(resolve(dirname(file), match[1]!.trim())) : undefined;
  } catch {
    return undefined;
  }
};
