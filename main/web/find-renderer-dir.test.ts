/** The built renderer is found above the CLI, whether it runs from source or from out/. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { findRendererDir } from './find-renderer-dir';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-find-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
