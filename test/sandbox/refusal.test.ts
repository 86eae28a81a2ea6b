/**
 * Launches the host cannot sandbox fail closed with the typed error and its remedy, in `warden
 * exec` and `warden doctor`: bubblewrap missing (an injected path), user namespaces blocked and
 * limits the host cannot enforce (injected host facts). These run on any Linux host; the cases
 * that then really launch are skipped where the sandbox is unavailable.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorReportSchema } from '../../app/contract/doctor';
import { runDoctorCommand } from '../../main/sandbox/doctor-command';
import { EXIT_REFUSED, runExecCommand } from '../../main/sandbox/exec-command';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import type { LinuxHostFacts } from '../../main/sandbox/linux/host-facts';
import { sandboxStatus } from './harness';
import { usableHostFacts } from '../helpers/host-facts';
import { captureIo } from '../helpers/capture-io';

const status = await sandboxStatus();

const goodFacts: LinuxHostFacts = usableHostFacts();
const blockedFacts: LinuxHostFacts = {
  ...goodFacts,
  userns: {
    ok: false,
    detail:
      'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)',
    remedy: 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
  },
};

/** The bubblewrap backend with injected host facts and bwrap path, where given. */
const backendWith = (facts?: LinuxHostFacts, bwrapPath?: string) =>
  bwrapBackend({ ...(facts ? { facts } : {}), ...(bwrapPath ? { bwrapPath } : {}) });

async function exec(args: string[], facts?: LinuxHostFacts, bwrapPath?: string) {
  const { out, io } = captureIo();
  const backend = backendWith(facts, bwrapPath);
  const code = await runExecCommand(args, io, { backend, stdio: 'capture' });
  return { code, ...out };
}

async function doctor(args: string[], facts?: LinuxHostFacts, bwrapPath?: string) {
  const { out, io } = captureIo();
  const code = await runDoctorCommand(args, io, { backend: backendWith(facts, bwrapPath) });
  return { code, stdout: out.stdout };
}

describe.skipIf(process.platform !== 'linux')('sandboxed launches the host cannot enforce', () => {
  it('bubblewrap missing: exec refuses with bwrap-missing and the package to install', async () => {
    const r = await exec(['--', '/bin/echo', 'ran'], undefined, '/nonexistent/bwrap');
    expect(r.code).toBe(EXIT_REFUSED);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('launch refused (bwrap-missing)');
    expect(r.stderr).toContain('apt install bubblewrap');
    const d = await doctor([], undefined, '/nonexistent/bwrap');
    expect(d.code).toBe(1);
    expect(d.stdout).toContain('NOT AVAILABLE');
    expect(d.stdout).toMatch(/MISSING.*bubblewrap was not found[\s\S]*remedy: install bubblewrap/);
  });

  it('user namespaces blocked: exec refuses with userns-blocked and the setting to change', async () => {
    const r = await exec(['--', '/bin/echo', 'ran'], blockedFacts);
    expect(r.code).toBe(EXIT_REFUSED);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('launch refused (userns-blocked)');
    expect(r.stderr).toContain(
      'remedy: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
    );
    const d = await doctor(['--json'], blockedFacts);
    expect(d.code).toBe(1);
    const report = doctorReportSchema.parse(JSON.parse(d.stdout));
    expect(report.backend.available).toBe(false);
    expect(report.checks.find((c) => c.id === 'userns')).toMatchObject({ status: 'missing' });
  });

  it('a bubblewrap that cannot create namespaces is probed as userns-blocked', async () => {
    // Stands in for bwrap where user namespaces are blocked (AppArmor, a sysctl, a container).
    const dir = await mkdtemp(join(tmpdir(), 'warden-fake-bwrap-'));
    const fake = join(dir, 'bwrap');
    await writeFile(
      fake,
      '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\n' +
        'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1\n',
      { mode: 0o755 },
    );
    try {
      const r = await exec(['--', '/bin/echo', 'ran'], undefined, fake);
      expect(r.code).toBe(EXIT_REFUSED);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('launch refused (userns-blocked)');
      expect(r.stderr).toContain('setting up uid map: Permission denied');
      expect(r.stderr).toMatch(/remedy: .*user namespaces/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a limit the host cannot enforce refuses the launch unless marked best-effort', async () => {
    const noPrlimit = { ...goodFacts, prlimitPath: null };
    const r = await exec(['--memory', '512', '--', '/bin/echo', 'ran'], noPrlimit);
    expect(r.code).toBe(EXIT_REFUSED);
    expect(r.stderr).toContain('launch refused (limit-unsupported)');
    expect(r.stderr).toContain('util-linux');
    const rootNoCgroup = { ...goodFacts, isRoot: true };
    const pids = await exec(['--pids', '10', '--', '/bin/echo', 'ran'], rootNoCgroup);
    expect(pids.code).toBe(EXIT_REFUSED);
    expect(pids.stderr).toContain('RLIMIT_NPROC does not bind uid 0');
    const d = await doctor(['--json'], rootNoCgroup);
    const report = doctorReportSchema.parse(JSON.parse(d.stdout));
    expect(report.limits.pids.enforced).toBe(false);
    expect(report.limits.memoryMb).toMatchObject({ enforced: true });
    expect(report.limits.memoryMb.how).toContain('per-process address space');
  });

  it.skipIf(!status.usable)(
    'best-effort: launches, and says the limit is not enforced',
    async () => {
      const real = await bwrapBackend().probe();
      expect(real.backend.available).toBe(true);
      const facts = {
        ...goodFacts,
        isRoot: process.getuid?.() === 0,
        prlimitPath: null,
        kernel: '6.8.0',
      };
      const r = await exec(
        ['--memory', '512', '--best-effort', 'memory', '--', '/bin/echo', 'ran'],
        facts,
      );
      expect(r).toMatchObject({ code: 0, stdout: 'ran\n' });
      expect(r.stderr).toContain('best-effort limit memoryMb is not enforced');
    },
  );

  it.skipIf(!status.usable)('doctor on this host: available, every check explained', async () => {
    const d = await doctor(['--json']);
    expect(d.code).toBe(0);
    const report = doctorReportSchema.parse(JSON.parse(d.stdout));
    expect(report.backend).toMatchObject({ name: 'bwrap', available: true });
    for (const id of ['bwrap', 'userns', 'seccomp']) {
      expect(report.checks.find((c) => c.id === id)?.status).toBe('ok');
    }
    expect(report.limits.wallSeconds.enforced).toBe(true);
  });
});
