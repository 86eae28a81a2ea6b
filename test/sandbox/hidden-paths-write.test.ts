/**
 * The hidden-path records are written after the spawn, never before it: a compiled plan leaves the
 * record file unwritten, the spawner writes it while the sandbox starts and reports the exit only
 * once it is on disk, and a launch that found nothing new does not write it again. The plan runs
 * in the real bubblewrap sandbox.
 */
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { hiddenPathsCache, hiddenPathsCacheDir } from '../../main/sandbox/hidden-paths-cache';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { spawnPlan } from '../../main/sandbox/spawn-plan';
import { sandboxRequired, sandboxStatus } from './harness';

const status = await sandboxStatus();

describe('linux sandbox availability (hidden-path record writes)', () => {
  it.skipIf(status.usable || !sandboxRequired)('is required by WARDEN_REQUIRE_SANDBOX=1', () => {
    expect.fail(`the sandbox cannot run here: ${status.reason}`);
  });
});

describe.skipIf(!status.usable || status.backend === 'landlock')(
  'hidden-path records written after the spawn',
  () => {
    let base: string;
    let project: string;
    let dir: string;
    beforeAll(async () => {
      base = await mkdtemp(join(tmpdir(), 'warden-hidden-write-'));
      project = join(base, 'project');
      await mkdir(join(project, 'a', 'deep'), { recursive: true });
      await writeFile(join(project, 'a', 'deep', '.env'), 'S=1');
      dir = hiddenPathsCacheDir(join(base, 'state'));
      // Folders must be older than the records' margin (2 s) to be recorded at all.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
    }, 10_000);
    afterAll(() => rm(base, { recursive: true, force: true }));

    const files = () => readdir(dir).catch(() => [] as string[]);

    it('writes no record before the spawn, and has it on disk when the exit is reported', async () => {
      const backend = bwrapBackend({
        facts: status.facts!,
        hiddenCache: hiddenPathsCache({ dir }),
      });
      const policy = defaultPolicy();
      policy.filesystem.roots.push({ path: project, access: 'read' });
      const launch = async () => {
        const r = await backend.compile(
          policy,
          { command: '/bin/true', args: [] },
          { instanceDir: base, hostEnv: { PATH: '/usr/bin:/bin', HOME: base }, secrets: {} },
        );
        if (!r.ok) throw new Error(r.error.message);
        return r.value;
      };
      const plan = await launch();
      expect(plan.afterSpawn).toBeDefined();
      // Turns pass between the compile and the spawn; still nothing is written.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await files()).toEqual([]);
      const exit = await (await spawnPlan(plan)).exited;
      expect(exit.code).toBe(0);
      const [name] = await files();
      expect(name).toMatch(/\.json$/);
      const { mtimeMs, ino } = await stat(join(dir, name!));

      // The same tree again: taken from the records, nothing to write, the file is untouched.
      const again = await (await spawnPlan(await launch())).exited;
      expect(again.code).toBe(0);
      const after = await stat(join(dir, name!));
      expect([after.ino, after.mtimeMs]).toEqual([ino, mtimeMs]);
      expect(await files()).toEqual([name]);
    });
  },
);
