/**
 * `npm install` must succeed where Electron's binary cannot be downloaded: Electron is an optional
 * dependency (npm drops it when its install script fails instead of rolling everything back), and
 * the postinstall step keeps its type definitions for the type-check. The download itself is
 * exercised for real by `.ci/run`; here the pieces it relies on.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDirEach } from '../helpers/temp-dir';

const repo = join(import.meta.dirname, '../..');
let dir = '';
tempDirEach('warden-electron-types-', (d) => (dir = d));

it('Electron is an optional dependency, and the install keeps its types', async () => {
  const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    scripts: Record<string, string>;
  };
  expect(pkg.dependencies?.electron).toBeUndefined();
  expect(pkg.devDependencies?.electron).toBeUndefined();
  expect(pkg.optionalDependencies?.electron).toBeDefined();
  expect(pkg.scripts.postinstall).toBe('node scripts/electron-types.mjs');
  expect(pkg.scripts.start).toBe('npm run build && node scripts/start.mjs');
  const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { optional?: boolean; dev?: boolean }>;
  };
  expect(lock.packages['node_modules/electron']).toMatchObject({ optional: true });
  expect(lock.packages['node_modules/electron']?.dev).toBeUndefined();
  const tsconfig = await readFile(join(repo, 'tsconfig.main.json'), 'utf8');
  expect(tsconfig).toContain('./node_modules/.electron-types/electron.d.ts');
});

it('where npm dropped Electron, the postinstall step takes electron.d.ts from its package', async () => {
  // A checkout whose Electron install failed: the lockfile names it, node_modules lacks it.
  await writeFile(
    join(dir, 'package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/electron': { version: '39.8.10' } } }),
  );
  // npm pack, offline: writes the package tarball where asked and prints its name.
  const pack = join(dir, 'pack');
  await mkdir(join(pack, 'package'), { recursive: true });
  await writeFile(
    join(pack, 'package', 'electron.d.ts'),
    '// Type definitions for Electron 39.8.10\n',
  );
  await writeFile(join(pack, 'package', 'index.js'), '');
  await writeFile(
    join(dir, 'fake-npm.cjs'),
    `const { execFileSync } = require('node:child_process');
const args = process.argv.slice(2);
if (args[0] !== 'pack' || args[1] !== 'electron@39.8.10') process.exit(3);
const dest = args[args.indexOf('--pack-destination') + 1];
execFileSync('tar', ['-czf', dest + '/electron-39.8.10.tgz', '-C', ${JSON.stringify(pack)}, 'package']);
console.log('electron-39.8.10.tgz');
`,
  );
  const out = execFileSync(process.execPath, [join(repo, 'scripts/electron-types.mjs')], {
    cwd: dir,
    env: { ...process.env, npm_execpath: join(dir, 'fake-npm.cjs') },
    encoding: 'utf8',
  });
  expect(out).toContain("Electron's binary is not installed");
  expect(await readFile(join(dir, 'node_modules/.electron-types/electron.d.ts'), 'utf8')).toBe(
    '// Type definitions for Electron 39.8.10\n',
  );
});

it('never fails the install: without the tarball it warns and exits 0', async () => {
  await writeFile(
    join(dir, 'package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/electron': { version: '39.8.10' } } }),
  );
  await writeFile(join(dir, 'fake-npm.cjs'), 'process.exit(1);\n');
  const result = spawnSync(process.execPath, [join(repo, 'scripts/electron-types.mjs')], {
    cwd: dir,
    env: { ...process.env, npm_execpath: join(dir, 'fake-npm.cjs') },
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  expect(result.stderr).toContain("mcp-warden: warning: could not keep Electron's types");
});
