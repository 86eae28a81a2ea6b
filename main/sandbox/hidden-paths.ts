/**
 * Finds, when a sandbox is built, the host paths a server's hidden-path guards cover inside its
 * declared roots: `~/…` and absolute entries that exist below a root, and every file or folder
 * below a root whose name matches a bare pattern (`.env`, `.env.*`). Each backend masks what this
 * returns; a root that lies inside a hidden path is refused rather than shown.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expandHome, isNamePattern, nameMatcher } from '../../app/policy/guards';
import { type IsolationUnavailable, isolationUnavailable } from '../../app/policy/isolation-error';
import { type Result, err, ok } from '../../app/result';

export interface HiddenTarget {
  /** The host path (its real path), inside a declared root. */
  path: string;
  directory: boolean;
}

/** How many entries a name-pattern walk visits before the launch is refused (fail closed). */
export const MAX_WALK_ENTRIES = 200_000;

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);

/**
 * The hidden paths present inside `roots` (real paths), deepest last. Symlinks are not followed
 * by the walk; a hidden entry that is a symlink is masked at its target when that target is
 * itself inside a root, since that is what a read through it would show.
 */
export async function findHiddenTargets(
  roots: readonly string[],
  hidden: readonly string[],
  home: string | undefined,
  maxEntries = MAX_WALK_ENTRIES,
): Promise<Result<HiddenTarget[], IsolationUnavailable>> {
  const found = new Map<string, HiddenTarget>();
  const add = async (candidate: string) => {
    const real = await realpath(candidate).catch(() => undefined);
    if (real === undefined || !roots.some((r) => within(real, r))) return;
    const info = await lstat(real).catch(() => undefined);
    if (info) found.set(real, { path: real, directory: info.isDirectory() });
  };
  const patterns = hidden.filter(isNamePattern);
  for (const entry of hidden.filter((p) => !isNamePattern(p))) {
    const expanded = expandHome(entry, home);
    if (expanded === undefined) continue;
    const declared = resolve(expanded);
    const real = await realpath(declared).catch(() => declared);
    const inside = roots.find((r) => within(r, real) && r !== '/');
    if (inside) {
      return err(
        isolationUnavailable(
          'root-invalid',
          `root "${inside}" lies inside the hidden path ${entry}`,
          `declare a folder outside it, or un-hide ${entry} for this server (an exception)`,
        ),
      );
    }
    if (roots.some((r) => within(real, r))) await add(real);
  }
  if (patterns.length > 0) {
    let budget = maxEntries;
    for (const root of roots) {
      const walked = await walk(root, nameMatcher(patterns), add, () => --budget >= 0);
      if (!walked) {
        return err(
          isolationUnavailable(
            'root-invalid',
            `root "${root}" holds more than ${maxEntries} entries to search for hidden files (${patterns.join(', ')})`,
            'declare a narrower folder as the root',
          ),
        );
      }
    }
  }
  // Shallow first; an entry inside a masked folder is already hidden (and no longer exists there).
  const sorted = [...found.values()].sort((a, b) => a.path.length - b.path.length);
  const kept: HiddenTarget[] = [];
  for (const t of sorted) {
    if (!kept.some((k) => k.directory && t.path !== k.path && within(t.path, k.path))) kept.push(t);
  }
  return ok(kept);
}

/** Directories read at once by a walk: enough to keep the file-system thread pool busy. */
const WALK_WIDTH = 16;

/**
 * Visits every entry below `dir` without following symlinks; false when the budget ran out.
 * Reads several directories at once (one `readdir` each) instead of one entry batch at a time.
 */
async function walk(
  dir: string,
  matches: (name: string) => boolean,
  add: (path: string) => Promise<void>,
  spend: () => boolean,
): Promise<boolean> {
  const pending = [dir];
  let exhausted = false;
  let active = 0;
  return new Promise((done, fail) => {
    const visit = async (current: string) => {
      const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (exhausted || !spend()) {
          exhausted = true;
          return;
        }
        const path = join(current, entry.name);
        if (matches(entry.name)) await add(path);
        else if (entry.isDirectory()) pending.push(path);
      }
    };
    const pump = () => {
      while (!exhausted && active < WALK_WIDTH && pending.length > 0) {
        active++;
        visit(pending.pop()!).then(() => {
          active--;
          pump();
        }, fail);
      }
      if (active === 0) done(!exhausted);
    };
    pump();
  });
}
