import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProgram } from './launch-instance';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-is-program-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('isProgram (whether the compiled init is used)', () => {
  it('takes a file this user may run, and nothing else', async () => {
    const file = join(dir, 'warden-init');
    await writeFile(file, '#!/bin/sh\n');
    // Without its mode bits (a copy that lost them): the script init is used instead.
    await chmod(file, 0o644);
    expect(await isProgram(file)).toBe(false);
    await chmod(file, 0o755);
    expect(await isProgram(file)).toBe(true);
    await mkdir(join(dir, 'folder'), { mode: 0o755 });
    expect(await isProgram(join(dir, 'folder'))).toBe(false);
    expect(await isProgram(join(dir, 'missing'))).toBe(false);
  });
});
