import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compileCacheDir, enableCompileCache } from './compile-cache';

type Patchable = { enableCompileCache?: (dir?: string) => unknown };

describe('compile cache', () => {
  let home: string;
  const original = (nodeModule as Patchable).enableCompileCache;
  const enable = vi.fn();
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'warden-compile-'));
    enable.mockReset();
    (nodeModule as Patchable).enableCompileCache = enable;
  });
  afterEach(async () => {
    (nodeModule as Patchable).enableCompileCache = original;
    await rm(home, { recursive: true, force: true });
  });

  it('lives in a folder of the state folder that only this user may enter', async () => {
    expect(enableCompileCache({ WARDEN_HOME: home })).toBe(true);
    expect(enable).toHaveBeenCalledWith(compileCacheDir(home));
    expect((await stat(compileCacheDir(home))).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder others can write: its entries would run as this user', async () => {
    await mkdir(compileCacheDir(home), { recursive: true });
    await chmod(compileCacheDir(home), 0o777);
    expect(enableCompileCache({ WARDEN_HOME: home })).toBe(false);
    expect(enable).not.toHaveBeenCalled();
  });

  it('does nothing where Node has no compile cache, or when it is turned off', () => {
    (nodeModule as Patchable).enableCompileCache = undefined;
    expect(enableCompileCache({ WARDEN_HOME: home })).toBe(false);
    (nodeModule as Patchable).enableCompileCache = enable;
    expect(enableCompileCache({ WARDEN_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(false);
    expect(enable).not.toHaveBeenCalled();
  });
});
