/**
 * New workspace files in the folders a server may write. bubblewrap keeps the ones found at launch
 * read-only (workspace-files.ts) but cannot keep a new one from being created: a `.git` with a
 * hook of the server's in a subfolder, a `.claude/settings.json` or a `.vscode` where there was
 * none, which the user's own git, AI client or editor would act on later outside any sandbox. So
 * while the server runs, Warden watches those folders (inotify, one watch a folder, outside
 * `node_modules`, kept and masked folders); the moment one appears, the server is stopped, and once
 * it is gone every new one is moved aside under a name nothing acts on. A sweep of the folders
 * runs again after every exit, and after any burst of events that could have overflowed the
 * kernel's queue (which Node does not report), so that nothing missed stays in place.
 */
import { type Dirent, type FSWatcher, lstatSync, statSync, watch } from 'node:fs';
import { lstat, readdir, realpath, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isBareRepository } from './git-repository';

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

/** More folders than this in the writable folders are not watched: the server is stopped. */
export const MAX_WATCHED_FOLDERS = 100_000;
/**
 * Events within one second past which each is no longer looked at alone: sweeps of the folders
 * take over (also what an overflowed kernel queue lost, which Node does not report).
 */
const BURST_EVENTS = 2_000;
/** The least time between the starts of two sweeps. */
const SWEEP_GAP_MS = 250;
const BARE_PARTS = new Set(['HEAD', 'objects', 'refs']);

interface Walk {
  spec: WorkspaceWatchSpec;
  skip: Set<string>;
  names: Set<string>;
  found: (path: string) => void;
  /** Called before a folder is listed; false leaves it out. */
  enter?: (dir: string) => boolean;
  unlistable: (dir: string, error: Error) => void;
}

const excluded = (w: Walk, path: string) => basename(path) === 'node_modules' || w.skip.has(path);

const resolves = (path: string) => {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
};

/**
 * A symlink the launch left dangling, or a path git reads that was not there, that now names
 * something: the server may have made it.
 */
const filledPath = (spec: WorkspaceWatchSpec) =>
  spec.dangling.find((link) => resolves(link)) ?? spec.absent.find((path) => resolves(path));

/**
 * Whether `name`, in `dir`, is a new workspace file: so named, or the HEAD of a bare repository
 * (which git finds when the user works inside it; moving its HEAD aside ends that).
 */
function isNew(w: Walk, dir: string, name: string, symlink: boolean): boolean {
  const path = join(dir, name);
  if (w.names.has(name)) return !(symlink && w.spec.dangling.includes(path) && !resolves(path));
  return name === 'HEAD' && w.names.has('.git') && isBareRepository(dir);
}

async function walk(w: Walk, dir: string): Promise<void> {
  if (w.enter && !w.enter(dir)) return;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') w.unlistable(dir, e as Error);
    return;
  }
  const below: Promise<void>[] = [];
  for (const entry of entries) {
    const { name } = entry;
    // Most entries are files of no interest: only their name is looked at.
    const folder = entry.isDirectory();
    // A name that is not valid UTF-8 reaches Node mangled: what is under it cannot be watched.
    if (folder && name.includes('\uFFFD')) {
      w.unlistable(`${dir}/${name}`, new Error('its name is not valid UTF-8'));
      continue;
    }
    if (name === 'node_modules' || !(folder || w.names.has(name) || name === 'HEAD')) continue;
    const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
    if (w.skip.has(path)) continue;
    if (isNew(w, dir, name, entry.isSymbolicLink())) w.found(path);
    else if (folder && !w.names.has(name)) below.push(walk(w, path));
  }
  // Side by side: each listing waits on the thread pool, not on the one before.
  await Promise.all(below);
}

/** The roots once each: one inside another is walked with it. */
function outermost(roots: readonly string[]): string[] {
  return roots.filter(
    (r, i) => !roots.some((o, j) => j !== i && (r.startsWith(`${o}/`) || (r === o && j < i))),
  );
}

const walkState = (spec: WorkspaceWatchSpec) => ({
  spec,
  skip: new Set([...spec.kept, ...spec.masked]),
  names: new Set(spec.names),
});

/** Finds the workspace files in `spec`'s folders that the launch did not keep. */
export async function findNewWorkspaceFiles(
  spec: WorkspaceWatchSpec,
): Promise<{ found: string[]; unlistable: string[] }> {
  const found: string[] = [];
  const unlistable: string[] = [];
  const w: Walk = {
    ...walkState(spec),
    found: (p) => void found.push(p),
    unlistable: (d) => void unlistable.push(d),
  };
  for (const root of outermost(spec.roots)) await walk(w, root);
  const link = filledPath(spec);
  if (link) found.push(link);
  return { found, unlistable };
}

/** A name beside `path` that nothing acts on and that is not taken. */
async function asideName(path: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const candidate = `${path}.moved-by-warden-${stamp}${n === 0 ? '' : `-${n}`}`;
    try {
      await lstat(candidate);
    } catch {
      return candidate;
    }
  }
}

/**
 * Moves each of `paths` aside, once the server is gone: only where the folder holding it is
 * still its own real path inside a writable root (a folder swapped for a symlink is not followed).
 */
export async function moveAside(
  spec: WorkspaceWatchSpec,
  paths: readonly string[],
): Promise<MovedWorkspaceFile[]> {
  const moved: MovedWorkspaceFile[] = [];
  for (const path of paths) {
    const dir = dirname(path);
    try {
      const real = await realpath(dir);
      if (real !== dir || !spec.roots.some((r) => dir === r || dir.startsWith(`${r}/`)))
        throw new Error(`${dir} is no longer a folder of this server's (a symlink?)`);
      const aside = await asideName(path);
      await rename(path, aside);
      moved.push({ path, movedTo: aside });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !(await lstat(path).catch(() => undefined))) continue;
      moved.push({ path, error: (e as Error).message });
    }
  }
  return moved;
}

export interface WorkspaceWatch {
  /** Settles once every folder is watched (or the watch failed and `onFound` was called). */
  ready: Promise<void>;
  /** Stops watching, sweeps once more and moves aside what the server created. */
  close(): Promise<MovedWorkspaceFile[]>;
}

/** Why a server was stopped for `path`, which it created. */
function createdText(path: string): string {
  const own = basename(path);
  // A bare repository's HEAD, a git config: what git reads.
  const name = own.startsWith('.') ? own : '.git';
  return `it created ${path}, a workspace file, in a folder it may write (what is placed there runs later as you, outside any sandbox); to let it, make an exception (--unprotect ${name})`;
}

/** Why a server was stopped when its folders could not be watched. */
function unwatchedText(what: string): string {
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

/**
 * Watches `spec`'s folders; `onFound` is called (once) when a new workspace file appears or a
 * folder cannot be watched (`why`), so that the caller stops the server at once.
 */
export function watchWorkspace(
  spec: WorkspaceWatchSpec,
  onFound: (why: string) => void,
  maxFolders = MAX_WATCHED_FOLDERS,
): WorkspaceWatch {
  /** Each watched folder, with the inode it was when its watch began. */
  const watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  let reported = false;
  let closed = false;
  const report = (why: string) => {
    if (reported || closed) return;
    reported = true;
    onFound(why);
  };
  /** Stops watching the folder `path` and what was below it (all with ''). */
  const unwatch = (path: string) => {
    if (path !== '' && !watchers.has(path)) return;
    for (const [dir, { watcher }] of watchers) {
      if (dir !== path && !dir.startsWith(`${path}/`)) continue;
      watcher.close();
      watchers.delete(dir);
    }
  };
  const w: Walk = {
    ...walkState(spec),
    found: (path) => report(createdText(path)),
    unlistable: (dir, e) => report(unwatchedText(`${dir} (${e.message})`)),
    enter: (dir) => {
      if (closed || reported) return false;
      try {
        const { ino } = lstatSync(dir);
        // Watched already (a sweep): the same folder, or another put in its place.
        if (watchers.get(dir)?.ino === ino) return true;
        unwatch(dir);
        if (watchers.size >= maxFolders) {
          report(unwatchedText(`more than ${maxFolders} folders`));
          return false;
        }
        const watcher = watch(dir, { persistent: false }, (type, name) => onEvent(dir, type, name));
        watcher.on('error', (e) => report(unwatchedText(`${dir} (${e.message})`)));
        watchers.set(dir, { watcher, ino });
        return true;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') w.unlistable(dir, e as Error);
        return false;
      }
    },
  };
  const walkAll = async () => {
    for (const root of outermost(spec.roots)) await walk(w, root);
    const link = filledPath(spec);
    if (link) w.found(link);
  };
  // Sweeps run one at a time, SWEEP_GAP_MS apart at least; one asked for meanwhile runs after.
  let sweeping: Promise<void> | undefined;
  let again = false;
  let lastSweep = 0;
  const sweep = (): void => {
    if (sweeping) {
      again = true;
      return;
    }
    const wait = Math.max(0, lastSweep + SWEEP_GAP_MS - Date.now());
    sweeping = new Promise<void>((r) => setTimeout(r, wait).unref())
      .then(() => {
        lastSweep = Date.now();
        return walkAll();
      })
      .then(
        () => {
          sweeping = undefined;
          if (again && !closed && !reported) {
            again = false;
            sweep();
          }
        },
        (e: Error) => {
          sweeping = undefined;
          report(unwatchedText(`its folders (${e.message})`));
        },
      );
  };
  let windowStart = 0;
  let windowEvents = 0;
  const onEvent = (dir: string, type: string, name: string | Buffer | null) => {
    if (closed || reported) return;
    const now = Date.now();
    if (now - windowStart > 1000) [windowStart, windowEvents] = [now, 0];
    if (++windowEvents > BURST_EVENTS || name === null) return sweep();
    // A file written or a mode changed: no new name.
    if (type !== 'rename') return;
    check(dir, join(dir, name.toString())).catch((e: Error) =>
      report(unwatchedText(`${dir} (${e.message})`)),
    );
  };
  const check = async (dir: string, path: string) => {
    if (excluded(w, path)) return;
    const name = basename(path);
    if (name.includes('\uFFFD')) {
      const entries = await readdir(dir, { withFileTypes: true });
      const mangled = entries.find((e) => e.isDirectory() && e.name.includes('\uFFFD'));
      if (mangled) w.unlistable(join(dir, mangled.name), new Error('its name is not valid UTF-8'));
      return;
    }
    const info = await lstat(path).catch(() => undefined);
    const link = filledPath(spec);
    if (link) return w.found(link);
    // Gone (moved or removed): its new place, if any, is reported to its new parent.
    if (!info) return unwatch(path);
    if (isNew(w, dir, name, info.isSymbolicLink())) return w.found(path);
    // A bare repository's parts may come in any order.
    if (BARE_PARTS.has(name) && isNew(w, dir, 'HEAD', false)) return w.found(join(dir, 'HEAD'));
    if (info.isDirectory() && !w.names.has(name)) await walk(w, path);
  };
  const ready = walkAll().catch((e: Error) => report(unwatchedText(`its folders (${e.message})`)));
  return {
    ready,
    async close() {
      await ready;
      closed = true;
      unwatch('');
      await sweeping;
      const { found, unlistable } = await findNewWorkspaceFiles(spec);
      // What could not be looked into may hold one: said, since it cannot be moved.
      const unknown = unlistable.map((path) => ({ path, error: 'Warden could not look into it' }));
      return [...(await moveAside(spec, found)), ...unknown];
    },
  };
}
