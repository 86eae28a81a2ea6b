/** The built renderer is found above the CLI, whether it runs from source or from out/. */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { findRendererDir, findSandboxInitDir, outsideAsar } from './find-renderer-dir';
import { tempDirEach } from '../../test/helpers/temp-dir';

let dir = '';
tempDirEach('warden-find-', (d) => (dir = d));

it('finds out/renderer above a bundled CLI and above a source file', async () => {
  await mkdir(join(dir, 'repo', 'out', 'renderer'), { recursive: true });
  await mkdir(join(dir, 'repo', 'out', 'cli'), { recursive: true });
  await mkdir(join(dir, 'repo', 'main', 'web'), { recursive: true });
  await writeFile(join(dir, 'repo', 'out', 'renderer', 'index.html'), '');
  const expected = join(dir, 'repo', 'out', 'renderer');
  expect(await findRendererDir([join(dir, 'repo', 'out', 'cli')])).toBe(expected);
  expect(await findRendererDir([join(dir, 'repo', 'main', 'web')])).toBe(expected);
});

it('answers undefined when no built renderer exists (unbuilt out/renderer is ignored)', async () => {
  await mkdir(join(dir, 'other', 'out', 'renderer'), { recursive: true });
  expect(await findRendererDir([join(dir, 'other')])).toBeUndefined();
});

it('maps a path inside app.asar to its unpacked twin, and leaves others alone', () => {
  expect(outsideAsar('/opt/MCP Warden/resources/app.asar/out/sandbox-init')).toBe(
    '/opt/MCP Warden/resources/app.asar.unpacked/out/sandbox-init',
  );
  expect(outsideAsar('C:\\Warden\\resources\\app.asar\\out')).toBe(
    'C:\\Warden\\resources\\app.asar.unpacked\\out',
  );
  expect(outsideAsar('/home/me/app.asarx/out/sandbox-init')).toBe(
    '/home/me/app.asarx/out/sandbox-init',
  );
  expect(outsideAsar('/home/me/repo/out/sandbox-init')).toBe('/home/me/repo/out/sandbox-init');
});

it('finds the sandbox init as a real file: unpacked in a packaged app, in out/ of a checkout', async () => {
  // A packaged app: the core runs from app.asar; the init exists in both (Electron lists
  // unpacked files in the archive too), but only the unpacked copy is a file other programs read.
  const resources = join(dir, 'resources');
  for (const root of ['app.asar', 'app.asar.unpacked']) {
    await mkdir(join(resources, root, 'out', 'sandbox-init'), { recursive: true });
    await writeFile(join(resources, root, 'out', 'sandbox-init', 'init.cjs'), '');
  }
  await mkdir(join(resources, 'app.asar', 'out', 'electron'), { recursive: true });
  expect(await findSandboxInitDir([join(resources, 'app.asar', 'out', 'electron')])).toBe(
    join(resources, 'app.asar.unpacked', 'out', 'sandbox-init'),
  );
  // Not unpacked: nothing usable, rather than a path bwrap cannot bind.
  await rm(join(resources, 'app.asar.unpacked'), { recursive: true });
  expect(
    await findSandboxInitDir([join(resources, 'app.asar', 'out', 'electron')]),
  ).toBeUndefined();
  // A source checkout.
  await mkdir(join(dir, 'repo', 'out', 'sandbox-init'), { recursive: true });
  await writeFile(join(dir, 'repo', 'out', 'sandbox-init', 'init.cjs'), '');
  expect(await findSandboxInitDir([join(dir, 'repo', 'main', 'core')])).toBe(
    join(dir, 'repo', 'out', 'sandbox-init'),
  );
});
