/**
 * A plan's cgroup folders are created by the spawner before anything of the plan runs; the
 * spawn is refused when one cannot be created (or exists already), and the plan's shell prefix
 * still refuses to exec the command when a folder it must join is missing.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LaunchPlan } from './backend';
import { cgroupPrefix } from './linux/limits';
import { spawnPlan } from './spawn-plan';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-plan-dirs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plan that joins `group` (a plain folder standing in for a cgroup), then touches a marker. */
function joiningPlan(group: string, create: boolean): LaunchPlan {
  const marker = join(dir, 'ran');
  return {
    argv: [
      '/bin/sh',
      ...cgroupPrefix([{ dir: group, settings: [['pids.max', '4', true]] }]).slice(1),
      '/bin/sh',
      '-c',
      `: > '${marker}'`,
    ],
    env: {},
    fdData: [],
    backend: 'test',
    enforcedLimits: {},
    ...(create ? { createDirs: [group] } : {}),
    cleanupDirs: [group],
  };
}

describe('the cgroup folders of a plan', () => {
  it('are created before the spawn and joined by the prefix before the command runs', async () => {
    const group = join(dir, 'warden-1');
    const spawned = await spawnPlan(joiningPlan(group, true));
    expect(spawned.child.pid).toBeGreaterThan(0);
    const pid = spawned.child.pid!;
    // Removal of a plain folder holding files fails (as a cgroup's would not): check before it.
    const procs = await new Promise<string>((resolve) => {
      spawned.child.once(
        'exit',
        () => void readFile(join(group, 'cgroup.procs'), 'utf8').then(resolve),
      );
    });
    expect(Number(procs.trim())).toBe(pid);
    expect(await readFile(join(group, 'pids.max'), 'utf8')).toBe('4\n');
    expect(await spawned.exited).toMatchObject({ code: 0, reason: 'exited' });
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  });

  it('refuse the spawn when one cannot be created: nothing runs', async () => {
    const group = join(dir, 'no-such-parent', 'warden-1');
    const spawned = await spawnPlan(joiningPlan(group, true));
    expect(spawned.child.pid).toBeUndefined();
    const exit = await spawned.exited;
    expect(exit).toMatchObject({ reason: 'spawn-failed', refusedBy: 'limits' });
    expect(exit.error).toContain('could not set up the cgroup limits');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('refuse the spawn when one exists already (it must be this launch’s own)', async () => {
    const group = join(dir, 'warden-1');
    await mkdir(group);
    const spawned = await spawnPlan(joiningPlan(group, true));
    expect(spawned.child.pid).toBeUndefined();
    expect(await spawned.exited).toMatchObject({ reason: 'spawn-failed' });
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('that were not created stop the prefix before the command: exit 125', async () => {
    const spawned = await spawnPlan(joiningPlan(join(dir, 'warden-missing'), false));
    let stderr = '';
    spawned.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await spawned.exited).toMatchObject({ code: 125, reason: 'exited' });
    expect(stderr).toContain('could not set up the cgroup limits');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });
});
