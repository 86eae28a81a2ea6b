/**
 * Escape suite, processes and identity: signalling or inspecting host processes, host environment
 * secrets, descriptors inherited from Warden's parent, new user namespaces and mounts. Each refused
 * escape sits beside a control that shows the same operation works where it is allowed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture, sandboxStatus, sh, wardenExec } from './harness';

const status = await sandboxStatus();
/** Landlock gives no private PID view or /dev: host entries are listed, and refused in use. */
const landlock = status.backend === 'landlock';

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
      if (landlock) {
        // Listed (no private PID view), but signals are scoped and its environment is closed.
        expect(probe.stdout.match(/kill: Operation not permitted/g)).toHaveLength(2);
        const inspect = await sh(
          [],
          `cat /proc/${pid}/environ /proc/${pid}/maps; ` +
            `readlink /proc/${pid}/fd/0 /proc/${pid}/cwd /proc/${pid}/exe || echo no-links`,
          f.hostEnv,
        );
        expect(inspect.stdout).toBe('no-links\n');
        expect(inspect.stderr.match(/Permission denied/g)).toHaveLength(2);
      } else {
        // dash: "kill: No such process", once for the victim and once for the test runner.
        expect(probe.stdout.match(/kill: No such process/g)).toHaveLength(2);
        expect(probe.stdout).toContain(`'/proc/${pid}': No such file`);
      }
      // `kill -9 -1` reached only the sandbox's own processes: the host's sleep lives on.
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
      process.kill(pid, 0);
      const control = await sh([], 'kill -0 $$ && echo alive && cat /proc/1/comm', f.hostEnv);
      expect(control.code).toBe(0);
      // Landlock: /proc/1 is the host's init, listed (no private PID view).
      if (landlock) expect(control.stdout).toMatch(/^alive\n/);
      else expect(control.stdout).toBe('alive\nbwrap\n');
    } finally {
      victim.kill('SIGKILL');
    }
  });

  // As root this was a real escape: the sandbox is uid 0 on the host, and sysctl files are
  // writable by their owner whatever the capabilities, so core_pattern could be rewritten.
  it('has no host devices, a read-only /proc/sys, and /proc/1/root is its own root', async () => {
    const before = await readFile('/proc/sys/kernel/core_pattern', 'utf8');
    if (landlock) {
      const devices = ['/dev/sda', '/dev/vda', '/dev/nvme0n1', '/dev/mem', '/dev/kmsg'];
      const opened = await sh(
        [],
        `for d in ${devices.join(' ')}; do [ -e $d ] && { head -c 1 $d >/dev/null || echo refused $d; echo x 2>/dev/null > $d || echo refused-write $d; }; done 2>/dev/null; ` +
          '{ echo x > /proc/sys/kernel/core_pattern; } 2>&1; echo rc=$?; ' +
          'cat /proc/1/root/etc/shadow 2>&1; ls /proc/1/root/ 2>&1',
        f.hostEnv,
      );
      for (const dev of devices.filter((d) => existsSync(d))) {
        expect(opened.stdout).toContain(`refused ${dev}\n`);
        expect(opened.stdout).toContain(`refused-write ${dev}\n`);
      }
      expect(opened.stdout).toMatch(/core_pattern: Permission denied[\s\S]*rc=2/);
      expect(await readFile('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
      expect(opened.stdout).toContain('/proc/1/root/etc/shadow: Permission denied');
      expect(opened.stdout).toContain("'/proc/1/root/': Permission denied");
      const control = await sh(
        [],
        'echo ok > /dev/null && head -c 4 /dev/urandom | wc -c',
        f.hostEnv,
      );
      expect(control).toMatchObject({ code: 0, stdout: '4\n' });
      return;
    }
    const escape = await sh(
      [],
      'ls /dev/sda /dev/vda /dev/nvme0n1 /dev/mem /dev/kmsg /dev/dri 2>&1; ' +
        '{ echo x > /proc/sys/kernel/core_pattern; } 2>&1; echo rc=$?; ' +
        'cat /proc/1/root/etc/shadow 2>&1; ls -A /proc/1/root/ > /tmp/a; ls -A / > /tmp/b; ' +
        'cmp /tmp/a /tmp/b && echo same-root; cat /tmp/a',
      f.hostEnv,
    );
    for (const dev of [
      '/dev/sda',
      '/dev/vda',
      '/dev/nvme0n1',
      '/dev/mem',
      '/dev/kmsg',
      '/dev/dri',
    ]) {
      expect(escape.stdout).toContain(`'${dev}': No such file`);
    }
    expect(escape.stdout).toMatch(
      /core_pattern: (Read-only file system|Permission denied)[\s\S]*rc=2/,
    );
    expect(await readFile('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
    expect(escape.stdout).toContain('/proc/1/root/etc/shadow: No such file');
    expect(escape.stdout).toContain('same-root\n');
    expect(escape.stdout).not.toMatch(/\n(run|var|srv|work|boot|mnt)\n/);
    const control = await sh(
      [],
      'echo ok > /dev/null && head -c 4 /dev/urandom | wc -c',
      f.hostEnv,
    );
    expect(control).toMatchObject({ code: 0, stdout: '4\n' });
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
    // PWD is bwrap's own, set after it changes into the sandbox's start directory (Landlock: the
    // start directory, never Warden's); git is told to read no system configuration.
    expect(names).toEqual(
      landlock
        ? ['GIT_CONFIG_NOSYSTEM', 'HOME', 'LANG', 'PATH', 'PWD', 'TERM', 'TMPDIR']
        : ['HOME', 'LANG', 'PATH', 'PWD', 'TERM', 'TMPDIR'],
    );
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
