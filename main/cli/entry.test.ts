/**
 * Every `warden` process checks its state folder before anything else: one that others may write
 * is refused with exit status 1, the path and the remedy on stderr, before the command runs
 * (`warden connect` and its early launch included) and before the compile cache is written there.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { compileCacheDir } from './compile-cache';
import { runEntry } from './entry';

type Patchable = { enableCompileCache?: (dir?: string) => unknown };

let dir = '';
tempDirEach('warden-entry-', (d) => (dir = d));

const original = (nodeModule as Patchable).enableCompileCache;
const enableCache = vi.fn();
let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  enableCache.mockReset();
  (nodeModule as Patchable).enableCompileCache = enableCache;
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  (nodeModule as Patchable).enableCompileCache = original;
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

/** Runs `runEntry` on WARDEN_HOME `home` with a command that records whether it ran. */
async function entryOn(home: string): Promise<boolean> {
  vi.stubEnv('WARDEN_HOME', home);
  let ran = false;
  runEntry(() => {
    ran = true;
    return Promise.resolve(0);
  });
  await new Promise((resolve) => setImmediate(resolve));
  return ran;
}

describe('the entry of every warden process', () => {
  it('refuses a state folder others may write: no command, no compile cache, status 1', async () => {
    const home = join(dir, 'wh');
    await mkdir(home);
    await chmod(home, 0o777);
    expect(await entryOn(home)).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(stderr.join('')).toBe(
      `warden: refusing the state folder ${home}: group or others may write it (mode 777) ` +
        `(make it yours alone: chmod go-w ${home}, then check that its config.json holds only ` +
        `servers you added; or set WARDEN_HOME to a folder of your own (one that does not exist ` +
        `is made))\n`,
    );
    expect(enableCache).not.toHaveBeenCalled();
    expect(existsSync(compileCacheDir(home))).toBe(false);
  });

  it('refuses a config.json others may write', async () => {
    const home = join(dir, 'wh');
    await mkdir(home, { mode: 0o700 });
    const config = join(home, 'config.json');
    await writeFile(config, '{}', { mode: 0o600 });
    await chmod(config, 0o620);
    expect(await entryOn(home)).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(stderr.join('')).toContain(`chmod go-w ${config}`);
  });

  it('runs the command on a folder of this user alone, and on one not made yet', async () => {
    const home = join(dir, 'wh');
    await mkdir(home, { mode: 0o700 });
    expect(await entryOn(home)).toBe(true);
    expect(await entryOn(join(dir, 'not-yet'))).toBe(true);
    expect(stderr).toEqual([]);
    expect(process.exitCode).toBe(0);
  });
});
