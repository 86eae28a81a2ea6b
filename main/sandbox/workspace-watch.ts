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
import { type FSWatcher, accessSync, constants, lstatSync, statSync, watch } from 'node:fs';
import { lstat, opendir, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { foldName } from '../../app/policy/workspace-files';
import { isBareRepository } from './git-repository';
import { mangled } from './hidden-paths-walk';
import {
  type MovedWorkspaceFile,
  type WorkspaceWatchSpec,
  createdText,
  inRoots,
  intoUnwatchedText,
  moveAside,
  openUp,
  unwatchedText,
} from './workspace-aside';

/** More folders than this in the writable folders are not watched: the server is stopped. */
export const MAX_WATCHED_FOLDERS = 100_000;
/**
 * Events within one second past which each is no longer looked at alone: sweeps of the folders
 * take over (also what an overflowed kernel queue lost, which Node does not report).
 */
const BURST_EVENTS = 2_000;
/** The least time between the starts of two sweeps. */
const SWEEP_GAP_MS = 250;
/** A bare repository's parts, as `foldName` writes them. */
const BARE_PARTS = new Set(['head', 'objects', 'refs', 'commondir']);

interface Walk {
  spec: WorkspaceWatchSpec;
  skip: Set<string>;
  /** The names watched for, folded (`foldName`): a case-insensitive file system finds `.GIT`. */
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
  const kind = foldName(name);
  if (w.names.has(kind)) return !(symlink && w.spec.dangling.includes(path) && !resolves(path));
  return kind === 'head' && w.names.has('.git') && isBareRepository(dir);
}

/**
 * Whether the symlink `link` leads into a `node_modules` folder of a writable root, as it
 * resolves or, while what it names does not exist yet, as it reads: a folder there, or nothing
 * yet (a link to a file there, `public/jquery.js`, is not a way in).
 */
async function intoNodeModules(spec: WorkspaceWatchSpec, link: string): Promise<boolean> {
  const real = await realpath(link).catch(() => undefined);
  const target = real ?? resolve(dirname(link), await readlink(link).catch(() => ''));
  if (!inRoots(spec, target) || !target.split('/').includes('node_modules')) return false;
  const info = await stat(target).catch(() => undefined);
  return info === undefined || info.isDirectory();
}

/** Folders one walk lists at most (the sweep at exit too): past that it stops and says so. */
export const MAX_WALK_FOLDERS = 2 * MAX_WATCHED_FOLDERS;
/** Listings one walk keeps in progress at once (each waits on Node's thread pool). */
const LISTINGS_AT_ONCE = 8;

/** A count of listings in progress, each waiting its turn past LISTINGS_AT_ONCE. */
function turns() {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (running >= LISTINGS_AT_ONCE) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Walks the folder `start` and what is below it, within MAX_WALK_FOLDERS; says how many. */
async function walk(w: Walk, start: string): Promise<number> {
  const budget = { left: MAX_WALK_FOLDERS };
  const turn = turns();
  const visit = async (dir: string): Promise<void> => {
    if (w.skip.has(dir) || (w.enter && !w.enter(dir))) return;
    const below = await turn(() => list(w, dir, budget));
    if (budget.left < 0) return;
    // Side by side: each listing waits on the thread pool, not on the one before.
    await Promise.all(below.map(visit));
  };
  await visit(start);
  if (budget.left < 0) w.unlistable(start, new Error(`more than ${MAX_WALK_FOLDERS} folders`));
  return MAX_WALK_FOLDERS - budget.left;
}

/** Lists `dir` (streamed: one folder of millions is not held whole), finding what is new. */
async function list(w: Walk, dir: string, budget: { left: number }): Promise<string[]> {
  const below: string[] = [];
  try {
    for await (const entry of await opendir(dir, { bufferSize: 256 })) {
      const { name } = entry;
      // Most entries are files of no interest: only their name is looked at.
      const folder = entry.isDirectory();
      // A name that is not valid UTF-8 reaches Node mangled: what is under it cannot be watched.
      if (folder && mangled(dir, name)) {
        w.unlistable(`${dir}/${name}`, new Error('its name is not valid UTF-8'));
        continue;
      }
      const kind = foldName(name);
      if (name === 'node_modules' || !(folder || w.names.has(kind) || kind === 'head')) continue;
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      if (w.skip.has(path)) continue;
      if (isNew(w, dir, name, entry.isSymbolicLink())) w.found(path);
      else if (folder && !w.names.has(kind)) {
        if (--budget.left < 0) break;
        below.push(path);
      }
    }
  } catch (e) {
    if (unwatchable(dir, e)) w.unlistable(dir, e as Error);
  }
  return below;
}

/**
 * Whether a folder that could not be listed or watched stops the server: not one that is gone,
 * nor another user's that this user (and so the server) may not write into.
 */
function unwatchable(dir: string, e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return false;
  if (code !== 'EACCES') return true;
  const owner = lstatSync(dir, { throwIfNoEntry: false })?.uid;
  if (owner === undefined || owner === process.getuid?.()) return true;
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
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
  names: new Set(spec.names.map(foldName)),
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

export interface WorkspaceWatch {
  /** Settles once every folder is watched (or the watch failed and `onFound` was called). */
  ready: Promise<void>;
  /** Stops watching, sweeps once more and moves aside what the server created. */
  close(): Promise<MovedWorkspaceFile[]>;
}

/**
 * Watches `spec`'s folders; `onFound` is called (once) when a new workspace file appears or a
 * folder cannot be watched (`why`), so that the caller stops the server at once.
 */
export function watchWorkspace(
  spec: WorkspaceWatchSpec,
  onFound: (why: string) => void,
  maxFolders = MAX_WATCHED_FOLDERS,
  delayMs = 0,
): WorkspaceWatch {
  /**
   * Each watched folder, with the inode it was when its watch began and the last sweep that found
   * it there (a folder no sweep finds any more is no longer watched: a long build's churn).
   */
  const watchers = new Map<string, { watcher: FSWatcher; ino: number; sweep: number }>();
  let sweeps = 0;
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
        const known = watchers.get(dir);
        if (known?.ino === ino) {
          known.sweep = sweeps;
          return true;
        }
        unwatch(dir);
        if (watchers.size >= maxFolders) {
          report(unwatchedText(`more than ${maxFolders} folders`));
          return false;
        }
        const watcher = watch(dir, { persistent: false }, (type, name) => onEvent(dir, type, name));
        watcher.on('error', (e) => report(unwatchedText(`${dir} (${e.message})`)));
        watchers.set(dir, { watcher, ino, sweep: sweeps });
        return true;
      } catch (e) {
        if (unwatchable(dir, e)) w.unlistable(dir, e as Error);
        return false;
      }
    },
  };
  const walkAll = async () => {
    const current = ++sweeps;
    for (const root of outermost(spec.roots)) await walk(w, root);
    const link = filledPath(spec);
    if (link) w.found(link);
    for (const [dir, { watcher, sweep: seen }] of watchers) {
      if (seen >= current) continue;
      watcher.close();
      watchers.delete(dir);
    }
  };
  // Sweeps run one at a time, apart by SWEEP_GAP_MS or four times the last one's length, whichever
  // is longer (a flood costs Warden a fifth of a CPU at most); one asked for meanwhile runs after.
  let sweeping: Promise<void> | undefined;
  let again = false;
  let nextSweep = 0;
  let endWait = (): void => undefined;
  const sweep = (): void => {
    if (sweeping) {
      again = true;
      return;
    }
    sweeping = new Promise<void>((r) => {
      // Unref'd, so it never holds the process open; close() ends the wait at once.
      const timer = setTimeout(r, Math.max(0, nextSweep - Date.now()));
      timer.unref();
      endWait = () => {
        clearTimeout(timer);
        r();
      };
    })
      .then(async () => {
        const began = Date.now();
        await walkAll();
        nextSweep = Date.now() + Math.max(SWEEP_GAP_MS, 4 * (Date.now() - began));
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
    // A file written or a mode changed: no new name, but what a repository's HEAD or commondir
    // says is written after the file appears.
    if (type !== 'rename' && !BARE_PARTS.has(name.toString())) return;
    check(dir, join(dir, name.toString())).catch((e: Error) =>
      report(unwatchedText(`${dir} (${e.message})`)),
    );
  };
  const check = async (dir: string, path: string) => {
    if (excluded(w, path)) return;
    const name = basename(path);
    if (mangled(dir, name)) {
      const entries = await readdir(dir, { withFileTypes: true });
      const odd = entries.find((e) => e.isDirectory() && mangled(dir, e.name));
      if (odd) w.unlistable(join(dir, odd.name), new Error('its name is not valid UTF-8'));
      return;
    }
    const info = await lstat(path).catch(() => undefined);
    const link = filledPath(spec);
    if (link) return w.found(link);
    // Gone (moved or removed): its new place, if any, is reported to its new parent.
    if (!info) return unwatch(path);
    if (isNew(w, dir, name, info.isSymbolicLink())) return w.found(path);
    // A way into node_modules, which is not watched: a repository there is found from here.
    if (info.isSymbolicLink() && (await intoNodeModules(spec, path))) {
      return report(intoUnwatchedText(path));
    }
    // A bare repository's parts may come in any order.
    if (BARE_PARTS.has(foldName(name)) && isNew(w, dir, 'HEAD', false))
      return w.found(join(dir, 'HEAD'));
    if (!info.isDirectory() || w.names.has(foldName(name))) return;
    // A folder moved in is walked whole; its folders count as events, so that moving a big tree
    // to and fro turns to rate-limited sweeps rather than a walk each time.
    if (windowEvents > BURST_EVENTS) return sweep();
    windowEvents += await walk(w, path);
  };
  // The first walk may wait (`delayMs`) so as not to compete with the server's own start: what
  // is made before it is found by it, only later. A close before it skips it for the last sweep.
  let startNow = (): void => undefined;
  const ready = new Promise<void>((r) => {
    const timer = setTimeout(r, delayMs);
    timer.unref();
    startNow = () => {
      clearTimeout(timer);
      r();
    };
  })
    .then(() => (closed ? undefined : walkAll()))
    .catch((e: Error) => report(unwatchedText(`its folders (${e.message})`)));
  return {
    ready,
    async close() {
      closed = true;
      startNow();
      await ready;
      unwatch('');
      // A sweep waiting its turn would wait on a timer that does not hold the process open.
      endWait();
      await sweeping;
      let last = await findNewWorkspaceFiles(spec);
      // What could not be looked into may hold one: opened up and swept again, or closed off.
      const opened = await Promise.all(last.unlistable.map((path) => openUp(spec, path)));
      if (opened.length > 0) last = await findNewWorkspaceFiles(spec);
      const unknown = opened.filter((o) => last.unlistable.includes(o.path));
      return [...(await moveAside(spec, last.found)), ...unknown];
    },
  };
}
