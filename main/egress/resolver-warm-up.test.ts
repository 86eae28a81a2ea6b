/**
 * A broker that resolves through the system warms the resolver once per process, a moment after
 * it starts, with a name the hosts file answers, so that a server's first connection does not
 * also wait for the resolver's own start; a broker given its own lookup warms nothing.
 */
import { expect, it, vi } from 'vitest';
import { compileRules } from '../../app/policy/network-patterns';
import { EgressBroker } from './egress-broker';

const lookup = vi.hoisted(() => vi.fn(() => Promise.resolve([])));
vi.mock('node:dns/promises', async (importOriginal) => {
  const dns: object = await importOriginal();
  return { ...dns, lookup, default: { ...dns, lookup } };
});

const rules = compileRules({ allow: ['example.com'], deny: [], allowAddresses: [] });
if (!rules.ok) throw new Error('rules');
const base = { server: 'srv', instanceId: 'srv#1', rules: rules.value, onDecision: () => {} };
const broker = (own?: (name: string) => Promise<string[]>) =>
  new EgressBroker({ ...base, mode: 'allowlist', askTimeoutMs: 1000, ...(own && { lookup: own }) });

it('warms the system resolver once per process, after a moment, unless given a lookup', () => {
  vi.useFakeTimers();
  try {
    broker(() => Promise.resolve(['127.0.0.1']));
    vi.advanceTimersByTime(1000);
    expect(lookup).not.toHaveBeenCalled();
    broker();
    broker();
    // Not on the launch's way.
    expect(lookup).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(lookup.mock.calls).toEqual([['localhost', { all: true, verbatim: true }]]);
  } finally {
    vi.useRealTimers();
  }
});
