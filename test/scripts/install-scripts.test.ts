/**
 * npm 12 runs a dependency's install script only where package.json's `allowScripts` approves it,
 * and skips the others with a warning at the end of the install. Without better-sqlite3's script
 * the audit log has no SQLite, and without Electron's the desktop app has no binary: the README's
 * `npm install && npm start` would start nothing. So every dependency in the lockfile that has an
 * install script is decided in `allowScripts`, by name (a pinned entry would block the script
 * again at the next update of the lockfile), and those the app needs are approved.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');

const readJson = async <T>(name: string) =>
  JSON.parse(await readFile(join(repo, name), 'utf8')) as T;

it('every dependency with an install script is approved or refused by name in allowScripts', async () => {
  const pkg = await readJson<{ allowScripts?: Record<string, boolean> }>('package.json');
  const lock = await readJson<{ packages: Record<string, { hasInstallScript?: boolean }> }>(
    'package-lock.json',
  );
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts).toContain('better-sqlite3');
  const allow = pkg.allowScripts ?? {};
  const undecided = [...new Set(withScripts)].filter((name) => typeof allow[name] !== 'boolean');
  expect(undecided, 'dependencies whose install script npm 12 would skip').toEqual([]);
  // The native SQLite of the audit log, Electron's binary, and esbuild's check of its own.
  expect(allow).toMatchObject({ 'better-sqlite3': true, electron: true, esbuild: true });
  // Pinned entries ("name@1.2.3") stop matching when the lockfile moves on.
  expect(Object.keys(allow).filter((key) => key.lastIndexOf('@') > 0)).toEqual([]);
});
