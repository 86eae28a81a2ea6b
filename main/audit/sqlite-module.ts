/**
 * better-sqlite3, loaded at the first open of a log as the CommonJS package it is (an ESM import of
 * it starts Node's CommonJS export lexer), with its native module named outright under Node (its
 * `bindings` helper otherwise searches a dozen paths, building stack traces to find them): both
 * are on the way of a standalone `warden connect`, beside the server's own start. Electron's
 * runtime (app.asar) is left to `bindings`.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface SqliteModule {
  Database: typeof Database;
  /** The native module's path, for `new Database(…, { nativeBinding })`, where it is known. */
  nativeBinding: string | undefined;
}

let sqlite: SqliteModule | undefined;

/** The package, loaded once. */
export function betterSqlite3(): SqliteModule {
  if (sqlite) return sqlite;
  // Bundled as CommonJS (the writer thread), import.meta.url is not there; Node's `require` is.
  const load =
    typeof require === 'function' && typeof require.resolve === 'function'
      ? require
      : createRequire(import.meta.url);
  const built = join(
    dirname(load.resolve('better-sqlite3/package.json')),
    'build/Release/better_sqlite3.node',
  );
  sqlite = {
    Database: load('better-sqlite3') as typeof Database,
    nativeBinding: !process.versions.electron && existsSync(built) ? built : undefined,
  };
  return sqlite;
}
