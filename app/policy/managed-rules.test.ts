import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import { checkPolicyAllowed, effectivePolicy } from './effective-policy';
import {
  appliedRetention,
  destinationRefusal,
  patternWithin,
  retentionRefusal,
  unhideRefusal,
} from './managed-rules';
import { parsePattern } from './network-patterns';

const p = (t: string) => {
  const r = parsePattern(t);
  if (!r.ok) throw new Error(t);
  return r.value;
};

describe('managed rules', () => {
  it('tells whether a pattern lies within an allowlist pattern', () => {
    expect(patternWithin(p('api.corp.test'), p('*.corp.test'))).toBe(true);
    expect(patternWithin(p('*.eu.corp.test'), p('*.corp.test'))).toBe(true);
    expect(patternWithin(p('*.corp.test'), p('*.corp.test'))).toBe(true);
    expect(patternWithin(p('api.corp.test:443'), p('*.corp.test:443'))).toBe(true);
    // Wider than the list, or beside it: outside.
    expect(patternWithin(p('*.corp.test'), p('api.corp.test'))).toBe(false);
    expect(patternWithin(p('corp.test'), p('*.corp.test'))).toBe(false);
    expect(patternWithin(p('api.corp.test'), p('*.corp.test:443'))).toBe(false);
    expect(patternWithin(p('evilcorp.test'), p('*.corp.test'))).toBe(false);
    expect(patternWithin(p('203.0.113.7:80'), p('203.0.113.7'))).toBe(true);
    expect(patternWithin(p('203.0.113.8'), p('203.0.113.7'))).toBe(false);
  });

  it('refuses an allowed destination outside the managed allowlist, naming the rule', () => {
    const layers = { global: undefined, managed: { network: { allow: ['*.corp.test'] } } };
    expect(destinationRefusal('api.corp.test', layers)).toBeUndefined();
    const refused = destinationRefusal('api.other.test', layers);
    expect(refused?.rule).toBe('managed network.allow');
    expect(refused?.message).toContain('"api.other.test" is outside it');
    const policy = defaultPolicy();
    policy.network = { ...policy.network, mode: 'allowlist', allow: ['a.corp.test', 'x.test'] };
    expect(checkPolicyAllowed(policy, layers)?.rule).toBe('managed network.allow');
  });

  it('carries the allowlists into the effective policy for the broker', () => {
    const policy = defaultPolicy();
    const r = effectivePolicy(policy, {
      global: { network: { allow: ['*.g.test'] } },
      managed: { network: { allow: ['*.corp.test'] } },
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.policy.network.within).toEqual([
      { layer: 'managed', allow: ['*.corp.test'] },
      { layer: 'global', allow: ['*.g.test'] },
    ]);
    expect(r.value.lines).toContainEqual({
      field: 'allowed only',
      value: '*.corp.test',
      layer: 'managed',
    });
  });

  it('refuses showing a managed hidden path however it is spelled, as the CLI does', () => {
    const layers = { global: undefined, managed: { hiddenPaths: ['~/work/secrets/'] } };
    for (const path of ['~/work/secrets', '~/work/secrets/', '~/work/secrets//'])
      expect(unhideRefusal(path, layers)?.rule, path).toBe('managed hiddenPaths "~/work/secrets/"');
    expect(unhideRefusal('~/work', layers)).toBeUndefined();
    expect(unhideRefusal('~/work/secrets/old', layers)).toBeUndefined();
    expect(
      unhideRefusal('/', { global: undefined, managed: { hiddenPaths: ['/'] } }),
    ).toBeDefined();
  });

  it('refuses any workspace file exception where a layer allows none, naming that layer', () => {
    const policy = defaultPolicy();
    const workspace = { allowExceptions: false };
    expect(checkPolicyAllowed(policy, { global: undefined, managed: { workspace } })).toBe(
      undefined,
    );
    policy.guards = { hide: [], unhide: [], unprotect: ['.vscode'] };
    const refused = checkPolicyAllowed(policy, { global: undefined, managed: { workspace } });
    expect(refused?.rule).toBe('managed workspace.allowExceptions=false');
    expect(refused?.message).toContain('the managed policy keeps every workspace file read-only');
    expect(checkPolicyAllowed(policy, { global: { workspace }, managed: {} })).toMatchObject({
      rule: 'global workspace.allowExceptions=false',
    });
    const allowed = { allowExceptions: true };
    expect(checkPolicyAllowed(policy, { global: undefined, managed: { workspace: allowed } })).toBe(
      undefined,
    );
  });

  it('refuses best-effort limits where the managed layer requires enforcement', () => {
    const policy = defaultPolicy();
    policy.limits.bestEffort = ['memoryMb'];
    const layers = { global: undefined, managed: { isolation: { allowBestEffort: false } } };
    expect(checkPolicyAllowed(policy, layers)).toMatchObject({
      rule: 'managed isolation.allowBestEffort=false',
    });
    policy.limits.bestEffort = [];
    expect(checkPolicyAllowed(policy, layers)).toBeUndefined();
  });

  it('refuses a retention below the managed minimum and raises a stored one to it', () => {
    const layers = {
      global: undefined,
      managed: { audit: { minRetentionDays: 180, minRetentionMb: 512 } },
    };
    expect(retentionRefusal({ maxAgeDays: 30, maxSizeMb: null }, layers)).toMatchObject({
      rule: 'managed audit.minRetentionDays=180',
    });
    expect(retentionRefusal({ maxAgeDays: null, maxSizeMb: 100 }, layers)).toMatchObject({
      rule: 'managed audit.minRetentionMb=512',
    });
    expect(retentionRefusal({ maxAgeDays: 365, maxSizeMb: null }, layers)).toBeUndefined();
    expect(appliedRetention({ maxAgeDays: 30, maxSizeMb: 2048 }, layers.managed)).toEqual({
      maxAgeDays: 180,
      maxSizeMb: 2048,
    });
  });
});
