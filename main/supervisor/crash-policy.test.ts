import { expect, it } from 'vitest';
import { CrashPolicy } from './crash-policy';

it('restarts with a doubling backoff, gives up past the limit, and forgets crashes outside the window', () => {
  let now = 0;
  const policy = new CrashPolicy(3, 60_000, () => now);
  expect(policy.crashed()).toEqual({ kind: 'restart', afterMs: 250 });
  expect(policy.crashed()).toEqual({ kind: 'restart', afterMs: 500 });
  expect(policy.crashed()).toEqual({ kind: 'restart', afterMs: 1000 });
  expect(policy.crashed()).toEqual({ kind: 'give-up', crashes: 4, windowSeconds: 60 });
  now = 120_000;
  expect(policy.crashed()).toEqual({ kind: 'restart', afterMs: 250 });
  policy.reset();
  expect(policy.crashed()).toEqual({ kind: 'restart', afterMs: 250 });
});
