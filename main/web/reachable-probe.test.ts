/** A sign-in's probe answers once, within its time, and only its own query. */
import { describe, expect, it } from 'vitest';
import { createProbes } from './reachable-probe';

describe('createProbes', () => {
  it('answers each query once, within its time, with its own answer', () => {
    let now = 0;
    const probes = createProbes(1000, () => now);
    const a = probes.issue();
    const b = probes.issue();
    expect(a.query).not.toBe(b.query);
    expect(a.answer).not.toBe(b.answer);
    expect(probes.spend(a.query)).toBe(a.answer);
    expect(probes.spend(a.query)).toBeUndefined();
    expect(probes.spend(a.answer)).toBeUndefined();
    now = 1001;
    expect(probes.spend(b.query)).toBeUndefined();
  });

  it('keeps 64 at most, dropping the oldest', () => {
    const probes = createProbes(1000);
    const issued = Array.from({ length: 65 }, () => probes.issue());
    expect(probes.spend(issued[0]!.query)).toBeUndefined();
    expect(probes.spend(issued[64]!.query)).toBe(issued[64]!.answer);
  });
});
