// Runs after `npm install`. Electron is an optional dependency: where its binary cannot be
// downloaded (GitHub unreachable, a proxy, ELECTRON_SKIP_BINARY_DOWNLOAD), npm drops the package
// instead of failing the whole install. The type-check of main/electron still needs Electron's
// type definitions, so they are taken from the same package tarball (the npm registry, usually
// npm's own cache) into node_modules/.electron-types/, where tsconfig.main.json looks second.
// Never fails the install: without the types only `npm run typecheck` would complain.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const target = join('node_modules', '.electron-types', 'electron.d.ts');

/** The bytes of `wanted` inside a (ustar) tar archive, or undefined. */
function tarEntry(tar, wanted) {
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return undefined;
    const field = (from, to) => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 500);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 136).trim() || '0', 8);
    if (name === wanted) return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

async function lockedElectronVersion() {
  const lock = JSON.parse(await readFile('package-lock.json', 'utf8'));
  return lock.packages?.['node_modules/electron']?.version;
}

async function main() {
  if (existsSync(join('node_modules', 'electron', 'electron.d.ts'))) return;
  const version = await lockedElectronVersion();
  if (!version) throw new Error('package-lock.json names no Electron version');
  if (existsSync(target) && (await readFile(target, 'utf8')).includes(`Electron ${version}\n`))
    return;
  const dir = await mkdtemp(join(tmpdir(), 'warden-electron-types-'));
  try {
    const npm = process.env.npm_execpath;
    const args = ['pack', `electron@${version}`, '--prefer-offline', '--silent'];
    const output = npm
      ? execFileSync(process.execPath, [npm, ...args, '--pack-destination', dir], {
          encoding: 'utf8',
        })
      : execFileSync('npm', [...args, '--pack-destination', dir], {
          encoding: 'utf8',
          shell: process.platform === 'win32',
        });
    const file = output.trim().split('\n').pop();
    const types = tarEntry(gunzipSync(await readFile(join(dir, file))), 'package/electron.d.ts');
    if (!types) throw new Error(`electron@${version} has no electron.d.ts`);
    await mkdir(join('node_modules', '.electron-types'), { recursive: true });
    await writeFile(target, types);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `mcp-warden: Electron's binary is not installed (its download failed or was skipped); ` +
      `its types were kept for the type-check, and "npm start" serves the control panel in a browser.`,
  );
}

main().catch((error) => {
  console.warn(`mcp-warden: warning: could not keep Electron's types: ${error.message}`);
});
