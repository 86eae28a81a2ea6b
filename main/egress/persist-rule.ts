/**
 * Saves an "always" grant into the server's policy through the config store, which validates the
 * policy and bumps the server's revision. A pattern already in the list is not added twice; an
 * "always allow" also drops the same pattern from `deny` (and vice versa) so the choice holds.
 */
import type { Policy, Server } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import type { PersistedRule } from './grant-inbox';

/** The part of the config store this needs. */
export interface PolicyUpdater {
  updateServer(
    name: string,
    change: (server: Server) => { policy?: Policy },
  ): Promise<Result<Server, { message: string }>>;
}

/** A `persistRule` callback for GrantInbox that writes to `store`; throws when the store refuses. */
export function persistRuleTo(
  store: PolicyUpdater,
): (server: string, rule: PersistedRule) => Promise<void> {
  return async (server, rule) => {
    const result = await store.updateServer(server, (s) => {
      const network = { ...s.policy.network };
      const other = rule.list === 'allow' ? 'deny' : 'allow';
      network[other] = network[other].filter((p) => p !== rule.pattern);
      if (!network[rule.list].includes(rule.pattern))
        network[rule.list] = [...network[rule.list], rule.pattern];
      return { policy: { ...s.policy, network } };
    });
    if (!result.ok) throw new Error(result.error.message);
  };
}
