/**
 * Follows config.json for changes made by other processes (the CLI while the app runs), so that
 * the running core takes them in instead of overwriting them with its next write.
 *
 * The file itself is watched, not its folder: the folder also holds the audit log, whose every
 * page write would otherwise wake the thread that relays calls. Atomic writes replace the file,
 * which ends a watch on the old one, so each look first watches the file then in place, then
 * reads it: a change made before the new watch is read, one made after it is seen. While the file
 * does not exist (a new home, or between an editor's delete and write), the folder is watched
 * for it to appear.
 */
import { type FSWatcher, existsSync, watch as watchPath } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ConfigStore } from './config-store';

/** Starts following `store`'s file; returns the function that stops it. */
export function watchConfigFile(
  store: ConfigStore,
  onError: (error: unknown) => void = () => undefined,
  watch: typeof watchPath = watchPath,
): () => void {
  const name = basename(store.path);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let stopped = false;
  const look = () => {
    arm();
    void store.reloadIfChanged().catch(onError);
  };
  // Several events arrive for one replacement; look once they have settled.
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(look, 50);
  };
  const arm = () => {
    watcher?.close();
    watcher = undefined;
    if (stopped) return;
    try {
      watcher = watch(store.path, soon);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return onError(error);
      try {
        watcher = watch(dirname(store.path), (_event, file) => {
          if (file === null || file === name) soon();
        });
      } catch (folderError) {
        return onError(folderError);
      }
      // Created between the two watches: no event will come for it.
      if (existsSync(store.path)) soon();
    }
    watcher.on('error', onError);
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher?.close();
  };
}
