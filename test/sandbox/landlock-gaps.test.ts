/**
 * What the Landlock backend does not give that bubblewrap gives: each gap is listed by doctor
 * (and so on the Host screen), and where bubblewrap's suite checks a mechanism Landlock lacks
 * (masked /proc, a read-only /dev tmpfs, sized tmpfs folders), the escape is refused another way
 * here. Runs only when the suite runs under Landlock.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANDLOCK_GAPS } from '../../main/sandbox/linux/landlock/landlock-gaps';
import { selectBackend } from '../../main/sandbox/select-backend';
import { type Fixture, makeFixture, sandboxStatus, sh, wardenExec } from './harness';

// Creates System V objects under KEY on the host, the way another program of the user would.
const HOST_IPC = `
import ctypes, ctypes.util, sys
libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)
key, flag = int(sys.argv[1]), 0o1000 | 0o600
print(libc.shmget(key, 4096, flag), libc.msgget(key, flag), libc.semget(key, 1, flag))
`;
// Attaches to them by key, and listens without bind (the kernel would pick the port).
const ATTACH = `
import ctypes, ctypes.util, os, socket, sys
libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)
key = int(sys.argv[1])
def res(r): return 'ok' if r >= 0 else 'ERR %d' % ctypes.get_errno()
print('shm', res(libc.shmget(key, 0, 0)), 'msg', res(libc.msgget(key, 0)), 'sem', res(libc.semget(key, 0, 0)))
print('mq', res(libc.mq_open(b'/warden-escape', os.O_RDONLY)))
try:
    s = socket.socket(); s.listen(1); print('listen ok', s.getsockname())
except OSError as e: print('listen ERR', e.errno)
`;

const status = await sandboxStatus();

describe.skipIf(!status.usable || status.backend !== 'landlock')(
  'Landlock backend: its gaps',
  () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await makeFixture();
    });
    afterAll(() => f.cleanup());

    it('doctor names the backend and lists every gap', async () => {
      const report = await selectBackend('linux').probe();
      expect(report.backend).toMatchObject({ name: 'landlock', available: true });
      const gaps = report.checks.find((c) => c.id === 'landlock-gaps');
      expect(gaps?.status).toBe('degraded');
      for (const gap of LANDLOCK_GAPS) expect(gaps?.detail).toContain(gap);
      for (const words of ['private PID view', 'private /tmp', 'network namespace', '/proc'])
        expect(LANDLOCK_GAPS.join(' ')).toContain(words);
    });

    it("cannot reach the host's System V IPC or message queues, nor listen without bind", async () => {
      const key = 0x5741_0000 + (process.pid % 0xffff);
      await writeFile(join(f.ro, 'host-ipc.py'), HOST_IPC);
      await writeFile(join(f.ro, 'attach.py'), ATTACH);
      const ids = execFileSync('/usr/bin/python3', [join(f.ro, 'host-ipc.py'), String(key)], {
        encoding: 'utf8',
      });
      try {
        expect(ids.split(' ').every((id) => Number(id) >= 0)).toBe(true);
        const control = execFileSync('/usr/bin/python3', [join(f.ro, 'attach.py'), String(key)], {
          encoding: 'utf8',
        });
        expect(control).toMatch(/^shm ok msg ok sem ok\n/);
        for (const flags of [[], ['--net', 'allowlist', '--allow', 'example.com']]) {
          const r = await wardenExec(
            ['--ro', f.ro, ...flags],
            ['/usr/bin/python3', join(f.ro, 'attach.py'), String(key)],
            f.hostEnv,
          );
          expect(r.stdout, flags.join(' ')).toBe(
            'shm ERR 13 msg ERR 13 sem ERR 13\nmq ERR 13\nlisten ERR 13\n',
          );
        }
      } finally {
        execFileSync('ipcrm', ['-M', String(key), '-Q', String(key), '-S', String(key)]);
      }
    });

    it('cannot write to /proc/sys, /proc/irq, /proc/bus or a hardware folder; can read them', async () => {
      const r = await sh(
        [],
        '{ echo 1 > /proc/sys/vm/drop_caches; } 2>&1; ' +
          '{ echo 1 > /proc/irq/default_smp_affinity; } 2>&1; ' +
          '{ echo x > /proc/sys/kernel/core_pattern; } 2>&1; cat /proc/sys/kernel/ostype',
        f.hostEnv,
      );
      expect(r.stdout).toContain('drop_caches: Permission denied');
      expect(r.stdout).toContain('default_smp_affinity: Permission denied');
      expect(r.stdout).toContain('core_pattern: Permission denied');
      expect(r.stdout).toContain('Linux\n');
    });

    it('cannot create files in /dev or /dev/shm; /dev/null works', async () => {
      const r = await sh(
        ['--memory', '256'],
        'head -c 1M /dev/zero > /dev/fill; echo rc=$?; echo x > /dev/shm/x; echo rc=$?; echo x > /dev/null && echo ok',
        f.hostEnv,
      );
      expect(r.stdout).toBe('rc=2\nrc=2\nok\n');
      expect(r.stderr).toContain('/dev/fill: Permission denied');
    });

    it('writes files only in its private folder (TMPDIR, HOME), not in the host /tmp', async () => {
      const r = await sh(
        ['--memory', '256'],
        'head -c 64M /dev/zero > "$TMPDIR/x" && du -m "$TMPDIR/x" | cut -f1; echo x > "$HOME/h" && echo home-ok; ' +
          '{ echo x > /tmp/warden-landlock-escape; } 2>&1; ls /tmp 2>&1 | head -1',
        f.hostEnv,
      );
      expect(r.stdout).toContain('64\nhome-ok\n');
      expect(r.stdout).toContain('/tmp/warden-landlock-escape: Permission denied');
      expect(r.stdout).toContain("'/tmp': Permission denied");
    });
  },
);
