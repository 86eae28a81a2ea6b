/**
 * What the workspace watch (workspace-watch.ts) watches, and what it does once the server is
 * gone: moves each new workspace file aside, inside the folder that holds it, held open so that a
 * path swapped for a symlink meanwhile is not followed; opens up or closes off a folder it could
 * not look into; and says what it did.
 */
import { constants } from 'node:fs';
import { chmod, lstat, open, readdir, readlink, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { workspaceNameOf } from '../../app/policy/workspace-files';

export interface WorkspaceWatchSpec {
  /** The folders the server may write (real paths). */
  roots: string[];
  /** The workspace names kept in them (the policy's exceptions left out). */
  names: string[];
  /** What the launch found and keeps read-only: not new, and not looked into. */
  kept: string[];
  /** Folders masked whole: what the server writes there stays in the sandbox. */
  masked: string[];
  /**
   * Symlinks so named that the launch found dangling there (nothing to keep): left alone while
   * they stay dangling, reported once what they name appears.
   */
  dangling: string[];
  /**
   * Paths git would read that do not exist and lie in a writable folder (the user's global git
   * config, `~/.config/git/config`): reported once one names something.
   */
  absent: string[];
}

export interface MovedWorkspaceFile {
  /** The workspace file the server created. */
  path: string;
  /** Where it was moved, or why it could not be. */
  movedTo?: string;
  error?: string;
}

/** A name beside `name` in the folder at `held` that nothing acts on and that is not taken. */
async function asideName(held: string, name: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const candidate = `${name}.moved-by-warden-${stamp}${n === 0 ? '' : `-${n}`}`;
    if (!(await lstat(`${held}/${candidate}`).catch(() => undefined))) return candidate;
  }
}

export const inRoots = (spec: WorkspaceWatchSpec, dir: string) =>
  spec.roots.some((r) => dir === r || dir.startsWith(`${r}/`));

/**
 * Runs `act` on the folder `dir` held open (`/proc/self/fd/N`), once it is known to be that
 * folder, at its own real path inside a writable root: a path swapped for a symlink meanwhile (by
 * another instance sharing the folder) is neither followed nor re-resolved.
 */
async function inHeldFolder<T>(
  spec: WorkspaceWatchSpec,
  dir: string,
  act: (held: string) => Promise<T>,
): Promise<T> {
  const swapped = new Error(`${dir} is no longer a folder of this server's (a symlink?)`);
  const folder = await open(
    dir,
    constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
  ).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' || e.code === 'ENOTDIR' ? swapped : e;
  });
  try {
    const held = `/proc/self/fd/${folder.fd}`;
    const real = await readlink(held);
    if (real !== dir || !inRoots(spec, dir)) throw swapped;
    return await act(held);
  } finally {
    await folder.close();
  }
}

/** Moves each of `paths` aside, once the server is gone, inside the folder that holds it. */
export async function moveAside(
  spec: WorkspaceWatchSpec,
  paths: readonly string[],
): Promise<MovedWorkspaceFile[]> {
  const moved: MovedWorkspaceFile[] = [];
  for (const path of paths) {
    const dir = dirname(path);
    const name = basename(path);
    try {
      const aside = await inHeldFolder(spec, dir, async (held) => {
        const to = await asideName(held, name);
        await rename(`${held}/${name}`, `${held}/${to}`);
        return to;
      });
      moved.push({ path, movedTo: join(dir, aside) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !(await lstat(path).catch(() => undefined))) continue;
      moved.push({ path, error: (e as Error).message });
    }
  }
  return moved;
}

/** Linux's O_PATH (the same on x86-64 and arm64), which Node does not name. */
const O_PATH = 0o10000000;

/**
 * Changes the mode of the folder at `path` itself: held by an O_PATH descriptor opened without
 * following a symlink, and changed through it, so that a symlink swapped in meanwhile is neither
 * followed nor changed.
 */
async function chmodFolder(path: Buffer, mode: number): Promise<void> {
  const entry = await open(path, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  try {
    await chmod(`/proc/self/fd/${entry.fd}`, mode);
  } finally {
    await entry.close();
  }
}

/**
 * Opens up, once the server is gone, a folder it left that Warden could not look into: one whose
 * mode keeps this user out gets its owner's rights back (to be swept); one whose name is not
 * valid UTF-8, which Node cannot address by name, gets none at all, so that no one works inside.
 * Says which was done, or why neither could be.
 */
export async function openUp(spec: WorkspaceWatchSpec, path: string): Promise<MovedWorkspaceFile> {
  const dir = dirname(path);
  const name = basename(path);
  try {
    return await inHeldFolder(spec, dir, async (held) => {
      const raw = name.includes('\uFFFD')
        ? (await readdir(held, { encoding: 'buffer' })).filter((n) => n.toString() === name)
        : [Buffer.from(name)];
      for (const bytes of raw) {
        const target = Buffer.concat([Buffer.from(`${held}/`), bytes]);
        await chmodFolder(target, raw.length === 1 && !name.includes('\uFFFD') ? 0o700 : 0);
      }
      return name.includes('\uFFFD')
        ? {
            path,
            error:
              'its name is not valid UTF-8; Warden took all its permissions away (chmod 000) so that nothing works inside it',
          }
        : { path, error: 'Warden could not look into it' };
    });
  } catch (e) {
    return { path, error: `Warden could not look into it (${(e as Error).message})` };
  }
}

/** Why a server was stopped for `path`, which it created. */
export function createdText(path: string): string {
  // Else a bare repository's HEAD, a git config: what git reads.
  const name = workspaceNameOf(basename(path)) ?? '.git';
  return `it created ${path}, a workspace file, in a folder it may write (what is placed there runs later as you, outside any sandbox); to let it, make an exception (--unprotect ${name})`;
}

/** Why a server was stopped for a symlink it made into a folder that is not watched. */
export function intoUnwatchedText(path: string): string {
  return `it made ${path}, a symlink into node_modules, in a folder it may write: git run there would find a repository Warden does not watch for (node_modules is not watched, since installs replace it)`;
}

/** Why a server was stopped when its folders could not be watched. */
export function unwatchedText(what: string): string {
  return `Warden could not watch ${what} for new workspace files; raise fs.inotify.max_user_watches (sysctl) if that limit was reached, or declare narrower folders writable`;
}

/** What a server stopped for workspace files is told as, with what was moved aside. */
export function workspaceStopText(exit: {
  stoppedFor?: string;
  workspaceFiles?: MovedWorkspaceFile[];
}): string {
  const moved = (exit.workspaceFiles ?? []).map((m) =>
    m.movedTo
      ? `${m.path} was moved aside to ${m.movedTo}`
      : `${m.path} could not be moved aside (${m.error ?? 'unknown error'}): remove it before you work there`,
  );
  const cause =
    exit.stoppedFor ?? createdText(exit.workspaceFiles?.[0]?.path ?? 'a workspace file');
  return [`stopped: ${cause}`, ...moved].join('; ');
}
