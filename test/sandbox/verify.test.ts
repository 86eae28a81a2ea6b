/**
 * `warden doctor --verify` against the real backend, and against deliberately weakened ones: a
 * backend whose filter lets every syscall through, and one that keeps the host's network
 * namespace. The real one must refuse every probe; each weakened one must fail, naming the probe
 * that got through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doctorReportSchema, verificationSchema } from '../../app/contract/doctor';
import { ok } from '../../app/result';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { runDoctorCommand } from '../../main/sandbox/doctor-command';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { seccompRet } from '../../main/sandbox/linux/seccomp/seccomp-program';
import { BpfAssembler } from '../../main/sandbox/linux/seccomp/bpf-assembler';
import { runVerification } from '../../main/sandbox/verify/run-verification';
import { createCore } from '../../main/core/core';
import { writeFile } from 'node:fs/promises';
import { sandboxStatus } from './harness';

const status = await sandboxStatus();

/** A filter that allows everything: what a backend that lost its seccomp rules would install. */
const allowAll = () => ok(new BpfAssembler().ret(seccompRet.allow).assemble());

/** The real backend, with the network namespace flag taken out of every plan. */
function hostNetworkBackend(): SandboxBackend {
  const real = bwrapBackend();
  return {
    ...real,
    async compile(policy, launch, ctx) {
      const plan = await real.compile(policy, launch, ctx);
      if (!plan.ok) return plan;
      const argv = plan.value.argv.filter((a) => a !== '--unshare-net') as [string, ...string[]];
      return ok({ ...plan.value, argv });
    },
  };
}

describe.skipIf(!status.usable)('sandbox verification', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'warden-verify-home-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('the real backend refuses every probe', async () => {
    const result = await runVerification(bwrapBackend());
    expect(result.probes.map((p) => [p.id, p.status])).toEqual([
      ['read-secret', 'refused'],
      ['host-loopback', 'refused'],
      ['unix-socket', 'refused'],
      ['git-hook', 'refused'],
      ['user-namespace', 'refused'],
      ['exceed-memory', 'refused'],
    ]);
    expect(result.passed).toBe(true);
  }, 120_000);

  it('fails, naming unix-socket, when the backend installs no real filter', async () => {
    const result = await runVerification(bwrapBackend({ seccompProgram: allowAll }));
    expect(result.passed).toBe(false);
    const escaped = result.probes.filter((p) => p.status === 'escaped').map((p) => p.id);
    expect(escaped).toContain('unix-socket');
    expect(result.probes.find((p) => p.id === 'read-secret')?.status).toBe('refused');
  }, 120_000);

  it('fails, naming host-loopback, when the backend keeps the host network', async () => {
    const result = await runVerification(hostNetworkBackend());
    expect(result.passed).toBe(false);
    expect(result.probes.filter((p) => p.status === 'escaped').map((p) => p.id)).toEqual([
      'host-loopback',
    ]);
  }, 120_000);

  it('doctor --verify prints each probe, keeps the result, and exits 1 when one escapes', async () => {
    let out = '';
    const io = { stdout: (s: string) => (out += s), stderr: (s: string) => (out += s) };
    const weak = bwrapBackend({ seccompProgram: allowAll });
    // A state folder that does not exist yet, as on the first run on a machine.
    const fresh = join(home, 'not-yet');
    const code = await runDoctorCommand(['--verify'], io, { backend: weak, wardenHome: fresh });
    expect(code).toBe(1);
    expect(out).toMatch(/ESCAPED\s+unix-socket/);
    expect(out).toMatch(/refused\s+read-secret/);
    const kept = JSON.parse(await readFile(join(fresh, 'verification.json'), 'utf8')) as {
      backend: string;
      passed: boolean;
    }[];
    expect(kept).toMatchObject([{ backend: 'bwrap', passed: false }]);
    out = '';
    expect(
      await runDoctorCommand(['--verify'], io, { backend: bwrapBackend(), wardenHome: fresh }),
    ).toBe(0);
    expect(out).toContain('Verified');
  }, 180_000);

  it('host.verify runs and keeps the result; host.doctor re-runs a kept one the host no longer matches', async () => {
    const coreHome = await mkdtemp(join(tmpdir(), 'warden-verify-core-'));
    const core = await createCore({ wardenHome: coreHome });
    try {
      const verified = await core.handle('host.verify', {});
      if (!verified.ok) throw new Error(verified.error.message);
      const first = verificationSchema.parse(verified.value);
      // The backend this host chose (bubblewrap, or Landlock where bubblewrap cannot run).
      expect(first).toMatchObject({ backend: status.backend, passed: true });
      const doctor = await core.handle('host.doctor', {});
      const report = doctorReportSchema.parse(doctor.ok ? doctor.value : undefined);
      expect(report.verifications).toEqual([first]);
      // As after a kernel upgrade: the kept result names another kernel.
      const file = join(coreHome, 'verification.json');
      const kept = JSON.parse(await readFile(file, 'utf8')) as { host: { kernel: string } }[];
      kept[0]!.host.kernel = '0.0.0-older';
      await writeFile(file, JSON.stringify(kept));
      const again = await core.handle('host.doctor', {});
      const rerun = doctorReportSchema.parse(again.ok ? again.value : undefined).verifications?.[0];
      expect(rerun?.host.kernel).not.toBe('0.0.0-older');
      expect(rerun?.at).not.toBe(first.at);
      expect(rerun?.passed).toBe(true);
    } finally {
      await core.close();
      await rm(coreHome, { recursive: true, force: true });
    }
  }, 180_000);
});
