/**
 * Follows config.json for changes made by other processes (the CLI while the app runs), so that
 * the running core takes them in instead of overwriting them with its next write. The directory is
 * watched, not the file: atomic writes replace the file, which ends a watch on the old one.
 */
import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ConfigStore } from './config-store';

/** Starts following `store`'s file; returns the function that stops it. */
export function watchConfigFile(
  store: ConfigStore,
  onError: (error: unknown) => void = () => undefined,
): () => void {
  const name = basename(store.path);
  let timer: NodeJS.Timeout | undefined;
  let watcher;
  try {
    watcher = watch(dirname(store.path), (_event, file) => {
      if (file !== null && file !== name) return;
      clearTimeout(timer);
      // Several events arrive for one replacement; read once they have settled.
      timer = setTimeout(() => void store.reloadIfChanged().catch(onError), 50);
    });
  } catch (error) {
    onError(error);
    return () => undefined;
  }
  watcher.on('error', onError);
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
