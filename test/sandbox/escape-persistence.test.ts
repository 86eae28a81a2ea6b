/**
 * Escape suite, persistence: a server that detaches a process (setsid, double fork, nohup) to keep
 * running after its launch ends, or that writes where the user's session would run it later
 * (shell start files, autostart entries, systemd user units, crontab). Runs under whichever
 * backend the host gives: bubblewrap's PID namespace, or the Landlock launcher's reaping.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { selectBackend } from '../../main/sandbox/select-backend';
import { spawnPlan } from '../../main/sandbox/spawn-plan';
import { type Fixture, makeFixture, sandboxStatus, sh } from './harness';

const status = await sandboxStatus();

describe.skipIf(!status.usable)(`escape: persistence (${status.backend})`, () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture();
  });
  afterAll(() => f.cleanup());

  it('a detached process does not outlive the launch; the same process runs while it lasts', async () => {
    const late = join(f.rw, 'late.txt');
    const detach =
      `setsid sh -c 'sleep 1; echo alive >> ${late}' </dev/null >/dev/null 2>&1 & ` +
      `( ( nohup sh -c 'sleep 1; echo alive >> ${late}' </dev/null >/dev/null 2>&1 & ) & ); echo started`;
    const escape = await sh(['--rw', f.rw], detach, f.hostEnv);
    expect(escape).toMatchObject({ code: 0, stdout: 'started\n' });
    // Well past the detached processes' second: none of them wrote.
    await sleep(2500);
    expect(await readFile(late, 'utf8').catch(() => 'nothing')).toBe('nothing');
    const control = await sh(['--rw', f.rw], `${detach}; sleep 2; cat ${late}`, f.hostEnv);
    expect(control.stdout).toBe('started\nalive\nalive\n');
  });

  it('cannot plant shell start files, autostart entries, user units or a crontab', async () => {
    const targets = [
      '.bashrc',
      '.profile',
      '.config/autostart/warden.desktop',
      '.config/systemd/user/warden.service',
    ].map((rel) => join(f.home, rel));
    await mkdir(join(f.home, '.config', 'autostart'), { recursive: true });
    await writeFile(targets[0]!, '# host bashrc\n');
    const script = targets
      .map((t) => `mkdir -p $(dirname ${t}) 2>/dev/null; echo pwned >> ${t}`)
      .join('; ');
    await sh([], `${script}; echo '* * * * * id' | crontab - 2>/dev/null; true`, f.hostEnv);
    expect(await readFile(targets[0]!, 'utf8')).toBe('# host bashrc\n');
    for (const t of targets.slice(1))
      expect(await readFile(t, 'utf8').catch(() => 'absent'), t).toBe('absent');
    const control = await sh(
      ['--rw', f.rw],
      `echo kept >> ${f.rw}/kept.txt; cat ${f.rw}/kept.txt`,
      f.hostEnv,
    );
    expect(control.stdout).toBe('kept\n');
  });
  it('a crash dump cannot land outside the writable roots; inside one it may', async () => {
    const crash = (dir: string) =>
      `cd ${dir} && ulimit -c unlimited && sh -c 'kill -SEGV $$'; echo rc=$?`;
    const escape = await sh(['--rw', f.rw], crash(f.outside), f.hostEnv);
    expect(escape.code).toBe(0);
    expect((await readdir(f.outside)).filter((n) => n.startsWith('core'))).toEqual([]);
    // The control needs a host that writes core files into the working folder.
    const pattern = await readFile('/proc/sys/kernel/core_pattern', 'utf8').catch(() => '');
    if (pattern.trim() !== 'core') return;
    await sh(['--rw', f.rw], crash(f.rw), f.hostEnv);
    expect((await readdir(f.rw)).some((n) => n.startsWith('core'))).toBe(true);
  });
  it('a detached process that ignores SIGTERM does not outlive a stop of its instance', async () => {
    const policy = defaultPolicy();
    policy.filesystem.roots.push({ path: f.rw, access: 'write' });
    const instanceDir = await mkdtemp(join(tmpdir(), 'warden-persist-'));
    const late = join(f.rw, 'stopped-late.txt');
    const script =
      `trap '' TERM; setsid sh -c "trap '' TERM; echo early >> ${late}; sleep 3; echo late >> ${late}" ` +
      `</dev/null >/dev/null 2>&1 & sleep 0.5; echo started; sleep 30`;
    const plan = await selectBackend('linux').compile(
      policy,
      { command: '/bin/sh', args: ['-c', script] },
      { instanceDir, hostEnv: f.hostEnv, secrets: {} },
    );
    if (!plan.ok) throw new Error(plan.error.message);
    const spawned = await spawnPlan(plan.value, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => spawned.child.stdout?.once('data', () => resolve()));
    await spawned.stop();
    // Past the detached process's three seconds: it wrote only before the stop.
    await sleep(4000);
    expect(await readFile(late, 'utf8')).toBe('early\n');
    await rm(instanceDir, { recursive: true, force: true });
  }, 30_000);
});
