/**
 * Lifecycle: stopping an instance kills its whole process tree, and if the Warden process dies —
 * even by SIGKILL, which it cannot intercept — nothing it launched in a sandbox survives. The
 * control is that the same processes are seen alive, from the host, just before.
 */
import { type StdioOptions, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { spawnPlan } from '../../main/sandbox/spawn-plan';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { sandboxStatus } from './harness';

const status = await sandboxStatus();

/** Host pids whose command line contains `marker`. */
async function pidsWith(marker: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker)) out.push(Number(name));
  }
  return out;
}

async function gone(marker: string, withinMs: number): Promise<number[]> {
  const until = Date.now() + withinMs;
  let left = await pidsWith(marker);
  while (left.length > 0 && Date.now() < until) {
    await sleep(50);
    left = await pidsWith(marker);
  }
  return left;
}

/** Waits (up to 3 s) until `count` processes carry `marker`; returns how many do. */
async function present(marker: string, count: number): Promise<number> {
  const until = Date.now() + 3000;
  let found = await pidsWith(marker);
  while (found.length < count && Date.now() < until) {
    await sleep(20);
    found = await pidsWith(marker);
  }
  return found.length;
}

/** A tree: a shell, two background sleeps and a grandchild shell, all carrying `marker`. */
const tree = (marker: string) => [
  '/bin/sh',
  '-c',
  `sleep ${marker} & sleep ${marker} & sh -c 'sleep ${marker}; true' & echo ready; wait`,
];

describe.skipIf(!status.usable)('sandbox lifecycle', () => {
  let dir: string;
  let entry: string;
  // Each Warden process's state folder is the test's own: one under a shared HOME (/tmp) may be
  // another user's, made by an earlier run, and is then refused.
  let wardenHome: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-lifecycle-'));
    wardenHome = join(dir, 'warden-home');
    entry = join(dir, 'exec-entry.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, 'fixtures', 'exec-entry.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: entry,
      logLevel: 'error',
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('stop() kills the whole tree', async () => {
    const marker = String(5000 + Math.floor(Math.random() * 4000));
    const plan = await bwrapBackend().compile(
      defaultPolicy(),
      { command: tree(marker)[0]!, args: tree(marker).slice(1) },
      {
        instanceDir: dir,
        hostEnv: { PATH: '/usr/bin:/bin' },
        secrets: {},
      },
    );
    if (!plan.ok) throw new Error(plan.error.message);
    const spawned = await spawnPlan(plan.value, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((resolve) => spawned.child.stdout?.once('data', resolve));
    expect(await present(marker, 3)).toBe(3);
    const exit = await spawned.stop();
    expect(exit.reason).toBe('stopped');
    expect(await gone(marker, 2000)).toEqual([]);
  });

  it('stop() kills the whole tree of a plain process (isolation off) too', async () => {
    const marker = String(5000 + Math.floor(Math.random() * 4000));
    const policy = defaultPolicy();
    policy.isolation = 'off';
    const plan = await unsandboxedBackend().compile(
      policy,
      { command: tree(marker)[0]!, args: tree(marker).slice(1) },
      { instanceDir: dir, hostEnv: { PATH: '/usr/bin:/bin' }, secrets: {} },
    );
    if (!plan.ok) throw new Error(plan.error.message);
    const spawned = await spawnPlan(plan.value, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((resolve) => spawned.child.stdout?.once('data', resolve));
    expect(await present(marker, 3)).toBe(3);
    await spawned.stop();
    expect(await gone(marker, 2000)).toEqual([]);
  });

  it("stop() kills what is left of a plain process's tree once its leader is gone", async () => {
    const marker = String(5000 + Math.floor(Math.random() * 4000));
    const policy = defaultPolicy();
    policy.isolation = 'off';
    // The shell ends on SIGTERM; a child that ignores it stays behind in the group.
    const script = `sh -c "trap '' TERM; sleep ${marker}; true" & echo ready; wait`;
    const plan = await unsandboxedBackend().compile(
      policy,
      { command: '/bin/sh', args: ['-c', script] },
      { instanceDir: dir, hostEnv: { PATH: '/usr/bin:/bin' }, secrets: {} },
    );
    if (!plan.ok) throw new Error(plan.error.message);
    const spawned = await spawnPlan(plan.value, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((resolve) => spawned.child.stdout?.once('data', resolve));
    // The sleep (the shells' lines carry the marker inside a longer argument).
    expect(await present(marker, 1)).toBe(1);
    await spawned.stop();
    // Within the grace (2 s) and a little more.
    expect(await gone(marker, 3500)).toEqual([]);
  });

  it('a descriptor Warden inherited does not reach the sandbox; a plain child gets it', async () => {
    const run = (command: string[]) => {
      const stdio: StdioOptions = [
        'ignore',
        'pipe',
        'pipe',
        ...Array<'ignore'>(17).fill('ignore'),
        'pipe',
      ];
      const child = spawn(command[0]!, command.slice(1), {
        // fd 20: Node leaves a descriptor that high open without close-on-exec, as a careless
        // parent process would hand it down.
        stdio,
        env: { PATH: '/usr/bin:/bin', HOME: tmpdir(), WARDEN_HOME: wardenHome },
      });
      let out = '';
      let leaked = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      (child.stdio as unknown as Readable[])[20]!.on(
        'data',
        (d: Buffer) => (leaked += d.toString()),
      );
      return new Promise<{ out: string; leaked: string }>((resolve) =>
        child.on('close', () => resolve({ out, leaked })),
      );
    };
    const script = [
      process.execPath,
      '-e',
      "const fs = require('fs'); console.log(fs.readlinkSync('/proc/self/fd/20')); try { fs.writeSync(20, 'escaped\\n'); } catch {}",
    ];
    const escape = await run([process.execPath, entry, '--', ...script]);
    expect(escape.leaked).toBe('');
    expect(escape.out).toBe('/dev/null\n');
    const control = await run(script);
    expect(control.leaked).toBe('escaped\n');
  });

  it.each([
    ['sandboxed', []],
    ['plain (isolation off)', ['--isolation', 'off']],
  ])('nothing %s survives when the Warden process is SIGKILLed', async (_kind, flags) => {
    const marker = String(5000 + Math.floor(Math.random() * 4000));
    const warden = spawn(process.execPath, [entry, ...flags, '--', ...tree(marker)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin', HOME: tmpdir(), WARDEN_HOME: wardenHome },
    });
    await new Promise((resolve) => warden.stdout.once('data', resolve));
    expect(await present(marker, 3)).toBe(3);
    warden.kill('SIGKILL');
    expect(await gone(marker, 3000)).toEqual([]);
  });

  it("gives a server no time to write its folders after the Warden process's death", async () => {
    // With Warden gone nothing watches the folder or moves aside what is left there: a server
    // that writes on SIGTERM (a workspace file, say) must get SIGKILL instead.
    const rw = await mkdtemp(join(tmpdir(), 'warden-lifecycle-rw-'));
    const script = `trap 'touch ${rw}/written-after' TERM; echo ready; while :; do sleep 0.05; done`;
    const backend = process.env.WARDEN_BWRAP ? { WARDEN_BWRAP: process.env.WARDEN_BWRAP } : {};
    // The built CLI: it finds the Landlock launcher beside it.
    const cli = join(import.meta.dirname, '..', '..', 'out', 'cli', 'warden.mjs');
    const warden = spawn(
      process.execPath,
      [cli, 'exec', '--rw', rw, '--', '/bin/sh', '-c', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: '/usr/bin:/bin', HOME: tmpdir(), WARDEN_HOME: wardenHome, ...backend },
      },
    );
    let stderr = '';
    warden.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const started = await new Promise<boolean>((resolve) => {
      warden.stdout.once('data', () => resolve(true));
      warden.once('exit', () => resolve(false));
    });
    expect(started, stderr).toBe(true);
    warden.kill('SIGKILL');
    await sleep(1500);
    expect(await readdir(rw)).toEqual([]);
    await rm(rw, { recursive: true });
  });
});
