/**
 * Keeps the hidden-path cache from growing without end. Records are named by their root,
 * patterns and reader, so every removed server, changed root, new group of the user or newer
 * record format leaves files that no launch reads again. Each launch marks the files it used
 * (their modification time, after its spawn), and at most one sweep a day removes what no launch
 * has used for 30 days: records, the check ahead's lists and settled searches, and temporary
 * files left by a process that died while writing. A file swept while still useful only costs a
 * launch a full search.
 */
import { lstat, lutimes, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a file may go unused before a sweep removes it. */
export const UNUSED_MS = 30 * DAY_MS;
/** The file whose modification time says when the last sweep of `dir` ran (beside it). */
export const sweptMarker = (dir: string): string => `${dir}.swept`;

/** Marks `files` as used at `now` (missing ones are skipped, links not followed). Never throws. */
export async function markUsed(files: Iterable<string>, now: number): Promise<void> {
  const at = new Date(now);
  for (const file of files) await lutimes(file, at, at).catch(() => undefined);
}

/** Files a sweep may remove: records, lists, settled searches and their temporary files. */
const SWEPT =
  /^(?:[0-9a-f]{32}\.json|[A-Za-z0-9][A-Za-z0-9._-]*\.(?:folders|settled))(?:\.tmp-.*)?$/;

/**
 * Removes what no launch has used for `UNUSED_MS` from the cache folder `dir` and its `ahead`
 * folder, unless a sweep ran in the last day; returns the paths removed. Never throws.
 */
export async function sweepHiddenPathsCache(dir: string, now: number): Promise<string[]> {
  const marker = sweptMarker(dir);
  const last = await lstat(marker).catch(() => undefined);
  if (last && now - last.mtimeMs < DAY_MS && last.mtimeMs <= now) return [];
  const removed: string[] = [];
  for (const folder of [dir, join(dir, 'ahead')]) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names) {
      if (!SWEPT.test(name)) continue;
      const path = join(folder, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile() || now - info.mtimeMs < UNUSED_MS) continue;
      await rm(path, { force: true }).catch(() => undefined);
      removed.push(path);
    }
  }
  // Made new, or its time set: never written through a link.
  await open(marker, 'wx', 0o600)
    .then((file) => file.close())
    .catch(() => undefined);
  await markUsed([marker], now);
  return removed;
}
