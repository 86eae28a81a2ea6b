/**
 * Escape suite, processes and identity: signalling or inspecting host processes, host environment
 * secrets, descriptors inherited from Warden's parent, new user namespaces and mounts. Each refused
 * escape sits beside a control that shows the same operation works where it is allowed.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, sh, wardenExec } from './harness';

const status = await sandboxStatus();

describe.skipIf(!status.usable)('escape: processes, environment, namespaces', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await makeFixture();
  });
  afterAll(() => f.cleanup());

  it('cannot see or signal host processes; can signal its own', async () => {
    const victim = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = victim.pid!;
      const probe = await sh(
        [],
        `kill -0 ${pid} 2>&1; ls /proc/${pid} 2>&1; kill -0 ${process.pid} 2>&1; kill -9 -1; echo ps=$(ls -d /proc/[0-9]* | wc -l)`,
        f.hostEnv,
      );
      // dash: "kill: No such process", once for the victim and once for the test runner.
      expect(probe.stdout.match(/kill: No such process/g)).toHaveLength(2);
      expect(probe.stdout).toContain(`'/proc/${pid}': No such file`);
      // `kill -9 -1` reached only the sandbox's own processes: the host's sleep lives on.
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
      process.kill(pid, 0);
      const control = await sh([], 'kill -0 $$ && echo alive && cat /proc/1/comm', f.hostEnv);
      expect(control).toMatchObject({ code: 0, stdout: 'alive\nbwrap\n' });
    } finally {
      victim.kill('SIGKILL');
    }
  });

  it('sees none of the host environment; sees exactly what the policy passes or sets', async () => {
    const escape = await wardenExec([], ['/usr/bin/env'], f.hostEnv);
    expect(escape.code).toBe(0);
    expect(escape.stdout).not.toMatch(/host-secret|SSH_AUTH_SOCK|AWS_|GITHUB_TOKEN/);
    const names = escape.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('=')[0])
      .sort();
    // PWD is bwrap's own, set after it changes into the sandbox's start directory.
    expect(names).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'TERM', 'TMPDIR']);
    const control = await sh(['--env', 'GITHUB_TOKEN', '--set-env', 'MODE=test'], 'env', f.hostEnv);
    expect(control.stdout).toContain('GITHUB_TOKEN=host-secret-gh\n');
    expect(control.stdout).toContain('MODE=test\n');
    expect(control.stdout).not.toContain('host-secret-aws');
  });

  it('inherits no descriptor beyond stdin, stdout and stderr', async () => {
    // Any descriptor Warden itself inherited without close-on-exec arrives as /dev/null.
    const r = await sh(
      [],
      'for fd in /proc/self/fd/*; do echo "${fd##*/} $(readlink $fd)"; done',
      f.hostEnv,
    );
    expect(r.code).toBe(0);
    const extra = r.stdout
      .trim()
      .split('\n')
      .filter((l) => !/^[012] /.test(l) && !/^\d+ ?$/.test(l)); // the glob's own, closed by now
    for (const line of extra) expect(line).toMatch(/^\d+ \/dev\/null$/);
  });

  it('cannot create a user namespace; a plain process can', async () => {
    const escape = await sh(
      [],
      'unshare -U true 2>&1; echo rc=$?; unshare -Ur true 2>&1; echo rc=$?',
      f.hostEnv,
    );
    expect(escape.stdout).not.toContain('rc=0');
    const control = await sh(['--isolation', 'off'], 'unshare -Ur true && echo created', f.hostEnv);
    expect(control).toMatchObject({ code: 0, stdout: 'created\n' });
  });

  it('cannot mount anything; a plain process in its own namespace can', async () => {
    const escape = await sh(
      ['--rw', f.rw],
      `mount -t tmpfs none ${f.rw} 2>&1; echo rc=$?; mount --bind / ${f.rw} 2>&1; echo rc=$?`,
      f.hostEnv,
    );
    expect(escape.stdout).not.toContain('rc=0');
    const control = await sh(
      ['--isolation', 'off'],
      `unshare -Urm sh -c 'mount -t tmpfs none ${f.rw} && echo mounted'`,
      f.hostEnv,
    );
    expect(control).toMatchObject({ code: 0, stdout: 'mounted\n' });
  });
});
