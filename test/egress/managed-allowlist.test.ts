/**
 * The managed allowlist at decision time: a destination outside it is refused by the broker's
 * decider even in `ask` mode, before anyone is asked, and even when a rule allows it, so a grant
 * can never reach what the managed layer leaves out.
 */
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { effectivePolicy } from '../../app/policy/effective-policy';
import { compileRules, parseDestination } from '../../app/policy/network-patterns';
import { GrantInbox } from '../../main/egress/grant-inbox';
import { InstanceDecider } from '../../main/egress/instance-decider';

function decider(allow: string[]) {
  const policy = defaultPolicy();
  policy.network = { ...policy.network, mode: 'ask', allow };
  const effective = effectivePolicy(policy, {
    global: undefined,
    managed: { network: { allow: ['*.corp.test'] } },
  });
  if (!effective.ok) throw new Error(effective.error.message);
  const rules = compileRules(effective.value.policy.network);
  if (!rules.ok) throw new Error(JSON.stringify(rules.error));
  const grants = new GrantInbox();
  const asked: string[] = [];
  grants.onPending((g) => {
    asked.push(g.host);
    void grants.decide(g.id, 'allow-session');
  });
  const d = new InstanceDecider({
    server: 's',
    instanceId: 'i',
    mode: 'ask',
    rules: rules.value,
    askTimeoutMs: 5000,
    grants,
  });
  const decide = (host: string) => {
    const dest = parseDestination(host, 443);
    if (!dest.ok) throw new Error(host);
    return d.decide(dest.value);
  };
  return { decide, asked };
}

describe('managed allowlist in the egress broker', () => {
  it('refuses a destination outside it without asking; asks inside it', async () => {
    const { decide, asked } = decider([]);
    const outside = await decide('api.other.test');
    expect(outside).toMatchObject({
      allowed: false,
      reason: 'denied',
      rule: 'managed network.allow',
    });
    expect(JSON.stringify(outside)).toContain('outside the allowlist of the managed policy');
    expect(asked).toEqual([]);
    expect(await decide('api.corp.test')).toMatchObject({ allowed: true });
    expect(asked).toEqual(['api.corp.test']);
  });

  it('refuses it even when the rules given to the broker allow it', async () => {
    const policy = defaultPolicy();
    policy.network = {
      ...policy.network,
      mode: 'allowlist',
      allow: ['api.other.test'],
      within: [{ layer: 'managed', allow: ['*.corp.test'] }],
    };
    const rules = compileRules(policy.network);
    if (!rules.ok) throw new Error('rules');
    const d = new InstanceDecider({
      server: 's',
      instanceId: 'i',
      mode: 'allowlist',
      rules: rules.value,
      askTimeoutMs: 1000,
    });
    const dest = parseDestination('api.other.test', 443);
    if (!dest.ok) throw new Error('dest');
    expect(await d.decide(dest.value)).toMatchObject({
      allowed: false,
      rule: 'managed network.allow',
    });
  });
});
