/**
 * The compiled bubblewrap plan: every namespace and hardening flag present, the seccomp fd placed
 * after the inherited egress fd, the wrapper prefix, the minimal environment; and, for real, the
 * egress fd 3 reaching the sandboxed process unchanged while nothing else does.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { LaunchPlan } from '../../main/sandbox/backend';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { NAMESPACE_ARGS } from '../../main/sandbox/linux/probe';
import type { LinuxHostFacts } from '../../main/sandbox/linux/host-facts';
import { spawnPlan } from '../../main/sandbox/spawn-plan';
import { sandboxStatus } from './harness';
import { usableHostFacts } from '../helpers/host-facts';

const status = await sandboxStatus();
const facts: LinuxHostFacts = usableHostFacts();
const hostEnv = {
  PATH: '/home/u/bin:/usr/bin',
  HOME: '/home/u',
  AWS_SECRET_ACCESS_KEY: 'x',
  LANG: 'C.UTF-8',
};

async function compile(
  extra: Partial<Parameters<ReturnType<typeof bwrapBackend>['compile']>[2]> = {},
) {
  const policy = defaultPolicy();
  policy.limits.openFiles = 100;
  const r = await bwrapBackend({ facts }).compile(
    policy,
    { command: 'server', args: ['--stdio'] },
    { instanceDir: '/tmp', hostEnv, secrets: {}, ...extra },
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe.skipIf(process.platform !== 'linux')('bubblewrap plan', () => {
  it('has every namespace and hardening flag, and no --setenv', async () => {
    const plan = await compile();
    // The exact flags are pinned by bwrap-args.test.ts; here, that the compiled plan has them.
    const at = plan.argv.indexOf(NAMESPACE_ARGS[0]!);
    expect(plan.argv.slice(at, at + NAMESPACE_ARGS.length + 1)).toEqual([
      ...NAMESPACE_ARGS,
      '--disable-userns',
    ]);
    const hardening =
      '--unshare-user --unshare-pid --unshare-net --unshare-ipc --unshare-uts ' +
      '--unshare-cgroup-try --die-with-parent --new-session --disable-userns';
    for (const flag of hardening.split(' ')) expect(plan.argv).toContain(flag);
    expect(plan.argv.join(' ')).toContain('--cap-drop ALL');
    expect(plan.argv.join(' ')).toContain('--seccomp 3');
    expect(plan.argv).not.toContain('--setenv');
    expect(plan.argv.slice(plan.argv.indexOf('--'))).toEqual([
      '--',
      '/usr/bin/prlimit',
      '--nproc=256',
      '--nofile=100',
      '--',
      'server',
      '--stdio',
    ]);
    expect(plan.env).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/home/u',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      TERM: 'dumb',
    });
    // The default process limit applies (RLIMIT_NPROC here); default memory needs a cgroup.
    expect(plan.enforcedLimits).toEqual({
      openFiles: expect.stringContaining('RLIMIT_NOFILE') as string,
      pids: expect.stringContaining('default 256: setrlimit RLIMIT_NPROC') as string,
    });
    expect(plan.unenforcedLimits).toEqual({
      memoryMb: expect.stringContaining('default 1024 not applied') as string,
    });
  });

  it('leaves --disable-userns to seccomp alone on bubblewrap older than 0.8.0', async () => {
    const old = {
      ...facts,
      bwrap: { ok: true as const, path: '/usr/bin/bwrap', version: '0.6.1' },
    };
    const r = await bwrapBackend({ facts: old }).compile(
      defaultPolicy(),
      { command: 'server', args: [] },
      { instanceDir: '/tmp', hostEnv, secrets: {} },
    );
    expect(r.ok && r.value.argv).not.toContain('--disable-userns');
    expect(r.ok && r.value.argv.join(' ')).toContain('--seccomp 3');
    const report = await bwrapBackend({ facts: old }).probe();
    expect(report.checks.find((c) => c.id === 'bwrap')).toMatchObject({ status: 'degraded' });
  });

  it('puts its own fds after the inherited egress fd, and runs the wrapper first', async () => {
    const plan = await compile({
      extraFds: 1,
      wrapper: { argv: [process.execPath, '/opt/init.cjs'], readOnlyBinds: [process.execPath] },
    });
    const line = plan.argv.join(' ');
    expect(line).toContain('--seccomp 4');
    expect(line).toContain('--ro-bind-data 5 /etc/passwd');
    const node = realpathSync(process.execPath);
    expect(line).toContain(`--ro-bind ${node} ${node}`);
    expect(plan.argv.slice(plan.argv.lastIndexOf('/usr/bin/prlimit'))).toEqual([
      '/usr/bin/prlimit',
      '--nproc=256',
      '--nofile=100',
      '--',
      process.execPath,
      '/opt/init.cjs',
      '--',
      'server',
      '--stdio',
    ]);
  });

  it.skipIf(!status.usable)('hands fd 3 to the sandboxed process unchanged', async () => {
    const r = await bwrapBackend().compile(
      defaultPolicy(),
      {
        command: '/bin/sh',
        args: [
          '-c',
          'echo through-fd3 >&3; for fd in /proc/self/fd/*; do echo "${fd##*/} $(readlink $fd)"; done',
        ],
      },
      { instanceDir: '/tmp', hostEnv, secrets: {}, extraFds: 1 },
    );
    if (!r.ok) throw new Error(r.error.message);
    const plan: LaunchPlan = r.value;
    const spawned = await spawnPlan(plan, {
      stdio: ['ignore', 'pipe', 'pipe'],
      extraFds: ['pipe'],
    });
    let fd3 = '';
    let out = '';
    (spawned.extraStreams[0] as Duplex).on('data', (d: Buffer) => (fd3 += d.toString()));
    spawned.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const exit = await spawned.exited;
    expect(exit.code).toBe(0);
    expect(fd3).toBe('through-fd3\n');
    // The egress fd 3 is the host's socket; the seccomp and /etc data fds are gone; anything
    // Warden inherited itself arrives as /dev/null.
    const fds = out
      .trim()
      .split('\n')
      .filter((l) => !/^\d+ ?$/.test(l));
    expect(fds.find((l) => l.startsWith('3 '))).toMatch(/^3 socket:/);
    for (const line of fds.filter((l) => !/^[0-3] /.test(l)))
      expect(line).toMatch(/^\d+ \/dev\/null$/);
  });

  it('names the workspace files it keeps read-only, for the launch row', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'warden-plan-kept-')));
    try {
      mkdirSync(join(project, 'app', '.vscode'), { recursive: true });
      writeFileSync(join(project, '.envrc'), 'export A=1\n');
      const roots = [{ path: project, access: 'write' as const }];
      const policy = defaultPolicy();
      policy.filesystem.roots = roots;
      const plan = async (unprotect?: ['.envrc']) => {
        const r = await bwrapBackend({ facts }).compile(
          { ...policy, guards: { hide: [], unhide: [], ...(unprotect && { unprotect }) } },
          { command: 'server', args: [] },
          { instanceDir: '/tmp', hostEnv: { ...hostEnv, HOME: project }, secrets: {} },
        );
        if (!r.ok) throw new Error(r.error.message);
        return r.value.workspaceKept;
      };
      expect((await plan())?.sort()).toEqual([
        join(project, '.envrc'),
        join(project, 'app', '.vscode'),
      ]);
      expect(await plan(['.envrc'])).toEqual([join(project, 'app', '.vscode')]);
      rmSync(join(project, 'app'), { recursive: true });
      expect(await plan(['.envrc'])).toBeUndefined();
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
