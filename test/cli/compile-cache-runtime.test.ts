/**
 * The CLI as users run it (`bin/warden.js`) on a Node that has the compile cache (22.1 and later;
 * CI runs Node 20, which has none): the cache is written to the state folder's private cache
 * folder, never to one other users could write, and not at all when the user turns it off.
 * `.ci/run` takes Node 22 from the npm registry and names it in WARDEN_TEST_NODE_CACHE; without it
 * this suite is skipped and says why. Only commands that need no native module run here: the native
 * modules are built for the Node that runs the tests.
 */
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCacheDir } from '../../main/cli/compile-cache';

const node = process.env.WARDEN_TEST_NODE_CACHE;
const cli = fileURLToPath(new URL('../../bin/warden.js', import.meta.url));
const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };
const skip = node
  ? undefined
  : 'skipped: WARDEN_TEST_NODE_CACHE names no Node with the compile cache (.ci/run provides one)';

const sameAbi =
  node !== undefined &&
  spawnSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim() ===
    process.versions.modules;

describe.skipIf(skip !== undefined)(
  `the CLI on a Node with the compile cache${skip ? ` (${skip})` : ''}`,
  () => {
    let home: string;
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const { NODE_COMPILE_CACHE: _own, ...inherited } = process.env;
      return spawnSync(node!, [cli, ...args], {
        env: { ...inherited, WARDEN_HOME: home, ...env },
        encoding: 'utf8',
      });
    };
    /** Every file under the cache folder (Node keeps one folder per runtime version). */
    const entries = async (): Promise<string[]> => {
      const dir = compileCacheDir(home);
      const found: string[] = [];
      for (const sub of await readdir(dir, { withFileTypes: true }))
        if (sub.isDirectory()) found.push(...(await readdir(join(dir, sub.name))));
        else found.push(sub.name);
      return found;
    };
    beforeEach(async () => {
      home = await mkdtemp(join(tmpdir(), 'warden-cache-runtime-'));
    });
    afterEach(() => rm(home, { recursive: true, force: true }));

    it('is a Node that has it', () => {
      const version = spawnSync(node!, ['-p', 'typeof require("node:module").enableCompileCache']);
      expect(String(version.stdout).trim()).toBe('function');
    });

    it('writes the cache to a folder only this user may enter, and answers the same from it', async () => {
      const first = run(['servers', 'list']);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain('No servers yet');
      expect((await stat(compileCacheDir(home))).mode & 0o777).toBe(0o700);
      expect((await entries()).length).toBeGreaterThan(0);
      const second = run(['servers', 'list']);
      expect(second).toMatchObject({ status: 0, stdout: first.stdout, stderr: '' });
      expect(run(['--version'])).toMatchObject({ status: 0, stdout: `warden ${version}\n` });
    });

    it('writes nothing to a cache folder others can write, and still runs', async () => {
      await mkdir(compileCacheDir(home), { recursive: true });
      await chmod(compileCacheDir(home), 0o777);
      expect(run(['servers', 'list'])).toMatchObject({ status: 0, stderr: '' });
      expect(await entries()).toEqual([]);
    });

    // Only root can give a folder to another user; as root, Node could write into it regardless.
    const asRoot = process.getuid?.() === 0;
    it.skipIf(!asRoot)(
      `writes nothing to a cache folder another user owns${asRoot ? '' : ' (skipped: only root can give a folder to another user)'}`,
      async () => {
        await mkdir(compileCacheDir(home), { recursive: true, mode: 0o700 });
        await chown(compileCacheDir(home), 65534, 65534);
        expect(run(['servers', 'list'])).toMatchObject({ status: 0, stderr: '' });
        expect(await entries()).toEqual([]);
      },
    );

    // As for a user whose Node changed after `npm install`: the audit log's native module is
    // built for the Node that runs the tests, and the command says how to rebuild it.
    it.skipIf(sameAbi)(
      `names the rebuild when the native module was built for another Node${sameAbi ? ' (skipped: that Node loads the module as built)' : ''}`,
      () => {
        const r = run(['servers', 'add', 'x', '--', '/bin/true']);
        expect(r.status).not.toBe(0);
        expect(r.stderr).toContain('npm rebuild better-sqlite3');
        expect(r.stderr).not.toMatch(/disk is not full/);
      },
    );

    it('writes nothing when the user turns it off', async () => {
      const r = run(['servers', 'list'], { NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(r).toMatchObject({ status: 0, stderr: '' });
      await expect(stat(compileCacheDir(home))).rejects.toThrow(/ENOENT/);
    });
  },
);
