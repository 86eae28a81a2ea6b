import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, defaultPolicy, describeLimits, effectiveLimits } from './defaults';

describe('default limits', () => {
  it('fill in 1 GiB and 256 processes, best-effort, where the policy declares none', () => {
    expect(DEFAULT_LIMITS).toEqual({ memoryMb: 1024, pids: 256 });
    const { limits, defaulted } = effectiveLimits(defaultPolicy().limits);
    expect(limits).toEqual({ memoryMb: 1024, pids: 256, bestEffort: ['memoryMb', 'pids'] });
    expect(defaulted).toEqual(['memoryMb', 'pids']);
  });

  it('leave a declared limit as declared, fail-closed unless the user marked it best-effort', () => {
    const { limits, defaulted } = effectiveLimits({ memoryMb: 4096, bestEffort: [] });
    expect(limits).toEqual({ memoryMb: 4096, pids: 256, bestEffort: ['pids'] });
    expect(defaulted).toEqual(['pids']);
  });

  it('do not change the policy they are given', () => {
    const policy = defaultPolicy();
    effectiveLimits(policy.limits);
    expect(policy.limits).toEqual({ bestEffort: [] });
  });

  it('are shown with what is default and what is best-effort', () => {
    expect(describeLimits({ openFiles: 64, bestEffort: [] })).toEqual([
      'memory 1024 MB (default, best-effort)',
      '256 processes (default, best-effort)',
      '64 open files',
    ]);
    expect(describeLimits({ memoryMb: 512, bestEffort: ['memoryMb'] }, false)).toEqual([
      'memory 512 MB (best-effort)',
    ]);
  });
});
