import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import { effectivePolicy, hiddenPathsOf } from './effective-policy';
import { DEFAULT_HIDDEN_PATHS } from './guards';
import { patternsOverlap } from './managed-rules';
import { parsePattern } from './network-patterns';

const managed = {
  isolation: { allowOff: false },
  network: { deny: ['*.blocked.test'] },
  limits: { memoryMb: 2048 },
  hiddenPaths: ['~/work/secrets'],
};

describe('effective policy', () => {
  it('combines the layers and says where each line comes from', () => {
    const policy = defaultPolicy();
    policy.network.deny = ['own.test'];
    policy.guards = { hide: ['notes.txt'], unhide: ['~/.aws'] };
    const r = effectivePolicy(policy, { global: { network: { deny: ['g.test'] } }, managed });
    if (!r.ok) throw new Error(r.error.message);
    const hide = r.value.policy.guards!.hide;
    expect(hide).toContain('~/work/secrets');
    expect(hide).toContain('~/.ssh');
    expect(hide).toContain('.env.*');
    expect(hide).toContain('notes.txt');
    expect(hide).not.toContain('~/.aws');
    expect(r.value.policy.network.deny).toEqual(['*.blocked.test', 'g.test', 'own.test']);
    // The default (1024 MB) is under the managed maximum: the backend applies it as usual.
    expect(r.value.policy.limits.memoryMb).toBeUndefined();
    expect(r.value.lines).toContainEqual({
      field: 'hidden',
      value: '~/work/secrets',
      layer: 'managed',
    });
    expect(r.value.lines).toContainEqual({ field: 'hidden', value: '~/.ssh', layer: 'default' });
    expect(r.value.lines).toContainEqual({ field: 'deny', value: 'g.test', layer: 'global' });
    expect(r.value.lines).toContainEqual({
      field: 'shown (exception)',
      value: '~/.aws',
      layer: 'server',
      exception: true,
    });
    // The backend masks exactly the effective list.
    expect(hiddenPathsOf(r.value.policy)).toEqual(hide);
  });

  it('caps limits at the managed maximum, and fills them from the global part', () => {
    const policy = defaultPolicy();
    const capped = effectivePolicy(policy, {
      global: { limits: { pids: 50 } },
      managed: { limits: { memoryMb: 512 } },
    });
    if (!capped.ok) throw new Error(capped.error.message);
    expect(capped.value.policy.limits.memoryMb).toBe(512);
    expect(capped.value.policy.limits.pids).toBe(50);
    policy.limits.memoryMb = 4096;
    const over = effectivePolicy(policy, { global: undefined, managed });
    expect(over).toMatchObject({ ok: false, error: { rule: 'managed limits.memoryMb=2048' } });
  });

  it('refuses un-hiding a managed path, and isolation off where the global part forbids it', () => {
    const policy = defaultPolicy();
    policy.guards = { hide: [], unhide: ['~/work/secrets'] };
    expect(effectivePolicy(policy, { global: undefined, managed })).toMatchObject({
      ok: false,
      error: { kind: 'managed-policy', rule: 'managed hiddenPaths "~/work/secrets"' },
    });
    const off = { ...defaultPolicy(), isolation: 'off' as const };
    expect(
      effectivePolicy(off, { global: { isolation: { allowOff: false } }, managed: undefined }),
    ).toMatchObject({ ok: false, error: { rule: 'global isolation.allowOff=false' } });
    expect(effectivePolicy(off, { global: undefined, managed: undefined }).ok).toBe(true);
  });

  it('hides the defaults for a policy that never went through the layers', () => {
    expect(hiddenPathsOf(defaultPolicy())).toEqual([...DEFAULT_HIDDEN_PATHS]);
  });

  it('finds overlapping destination patterns', () => {
    const p = (t: string) => {
      const r = parsePattern(t);
      if (!r.ok) throw new Error(t);
      return r.value;
    };
    expect(patternsOverlap(p('api.blocked.test'), p('*.blocked.test'))).toBe(true);
    expect(patternsOverlap(p('*.a.blocked.test'), p('*.blocked.test'))).toBe(true);
    expect(patternsOverlap(p('*.x.test'), p('*.blocked.test'))).toBe(false);
    expect(patternsOverlap(p('blocked.test'), p('*.blocked.test'))).toBe(false);
    expect(patternsOverlap(p('api.blocked.test:80'), p('*.blocked.test:443'))).toBe(false);
  });
});
