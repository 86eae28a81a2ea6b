import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../app/policy/defaults';
import type { Policy } from '../../../../app/policy/policy-schema';
import { usableHostFacts } from '../../../../test/helpers/host-facts';
import type { LinuxHostFacts } from '../host-facts';
import { linuxBackend } from './choose-linux-backend';
import { LANDLOCK_GAPS, backendLabel } from './landlock-gaps';
import type { LandlockFacts } from './landlock-probe';

const blocked = (): LinuxHostFacts => ({
  ...usableHostFacts(),
  userns: { ok: false, detail: 'AppArmor restricts user namespaces', remedy: 'load the profile' },
  seccomp: { ok: false, detail: 'not tried', remedy: 'load the profile' },
});
const landlock = (abi: number): LandlockFacts => ({ ok: true, launcher: '/opt/ll', abi });
const none: LandlockFacts = { ok: false, abi: 0, detail: 'Landlock is off', remedy: 'lsm=' };

describe('Linux backend choice and the Landlock backend', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-ll-unit-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const ctx = () => ({ instanceDir: dir, hostEnv: { PATH: '/usr/bin:/bin' }, secrets: {} });
  const launch = { command: '/bin/true', args: [] };
  const networked = (): Policy => {
    const p = defaultPolicy();
    p.network = { ...p.network, mode: 'allowlist', allow: ['example.com'] };
    return p;
  };

  it('keeps bubblewrap where it works, and falls back to Landlock where it cannot run', async () => {
    const bwrap = linuxBackend({ facts: usableHostFacts(), landlock: landlock(7) });
    expect((await bwrap.resolve!()).name).toBe('bwrap');
    const fallback = linuxBackend({ facts: blocked(), landlock: landlock(7) });
    expect((await fallback.resolve!()).name).toBe('landlock');
    const report = await fallback.probe();
    expect(report.backend).toMatchObject({ name: 'landlock', available: true, version: 'ABI 7' });
    expect(report.checks.find((c) => c.id === 'backend-choice')?.detail).toContain(
      'AppArmor restricts user namespaces',
    );
    expect(report.checks.find((c) => c.id === 'landlock-gaps')?.detail).toBe(
      LANDLOCK_GAPS.join('; '),
    );
    expect(backendLabel('landlock')).toBe('Sandboxed (Landlock)');
  });

  it('refuses with both reasons when neither backend can run; never launches bare', async () => {
    const neither = linuxBackend({ facts: blocked(), landlock: none });
    const plan = await neither.compile(defaultPolicy(), launch, ctx());
    expect(plan.ok).toBe(false);
    if (!plan.ok) expect(plan.error.kind).toBe('userns-blocked');
    const report = await neither.probe();
    expect(report.backend.available).toBe(false);
    expect(report.checks.find((c) => c.id === 'landlock')).toMatchObject({
      status: 'missing',
      detail: 'Landlock is off',
    });
  });

  it('refuses a policy the kernel ABI cannot enforce, with the reason and remedy', async () => {
    const abi4 = linuxBackend({ choice: 'landlock', facts: blocked(), landlock: landlock(4) });
    const refused = await abi4.compile(networked(), launch, { ...ctx(), egressPort: 4000 });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'landlock-unavailable' } });
    if (!refused.ok) {
      expect(refused.error.message).toContain('ABI is 4');
      expect(refused.error.message).toContain('needs ABI 6');
      expect(refused.error.remedy).toMatch(/upgrade the kernel|bubblewrap/);
    }
    const abi3 = linuxBackend({ choice: 'landlock', facts: blocked(), landlock: landlock(3) });
    const old = await abi3.compile(defaultPolicy(), launch, ctx());
    expect(old).toMatchObject({ ok: false, error: { kind: 'landlock-unavailable' } });
  });

  it('compiles TCP to the egress port only, or no Internet socket at all', async () => {
    const ll = linuxBackend({ choice: 'landlock', facts: blocked(), landlock: landlock(7) });
    const noNet = await ll.compile(defaultPolicy(), launch, ctx());
    if (!noNet.ok) throw new Error(noNet.error.message);
    expect(noNet.value.backend).toBe('landlock');
    expect(noNet.value.argv).toContain('--no-inet');
    expect(noNet.value.argv).not.toContain('--connect');
    expect(noNet.value.argv.slice(0, 1)).toEqual(['/opt/ll']);
    expect(noNet.value.env.HOME).toBe(join(dir, 'home'));
    expect(noNet.value.env.TMPDIR).toBe(join(dir, 'tmp'));
    const net = await ll.compile(networked(), launch, { ...ctx(), egressPort: 4000 });
    if (!net.ok) throw new Error(net.error.message);
    const at = net.value.argv.indexOf('--connect');
    expect(net.value.argv[at + 1]).toBe('4000');
    const noPort = await ll.compile(networked(), launch, ctx());
    expect(noPort.ok).toBe(false);
    const wrapped = await ll.compile(networked(), launch, {
      ...ctx(),
      egressPort: 4000,
      wrapper: { argv: ['/init'], readOnlyBinds: [] },
    });
    expect(wrapped.ok).toBe(false);
  });

  it("gives Warden's state inside a root no rule, and the folder holding it a listing", async () => {
    const root = join(dir, 'proj');
    const state = join(root, 'state');
    const ll = linuxBackend({
      choice: 'landlock',
      facts: blocked(),
      landlock: landlock(7),
      protectedPaths: [state],
    });
    await mkdir(state, { recursive: true });
    await writeFile(join(root, 'notes.txt'), '');
    const policy = defaultPolicy();
    policy.filesystem.roots.push({ path: root, access: 'write' });
    const plan = await ll.compile(policy, launch, ctx());
    if (!plan.ok) throw new Error(plan.error.message);
    const argv = plan.value.argv;
    const at = (path: string) => argv.flatMap((a, i) => (argv[i + 1] === path ? [a] : []));
    expect(at(root)).toEqual(['--lsn']);
    expect(at(join(root, 'notes.txt'))).toEqual(['--rwn']);
    expect(at(state)).toEqual([]);
    expect((await ll.checkRoot(root)).ok).toBe(true);
    expect((await ll.checkRoot(state)).ok).toBe(false);
  });
});
