/**
 * Saves an "always" grant into the server's policy through the config store, which validates the
 * policy and bumps the server's revision. The edit itself is `persistGrant`: the pattern joins
 * its list once and leaves the other one, so the latest choice holds.
 */
import { persistGrant } from '../../app/policy/policy-edits';
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
    const result = await store.updateServer(server, (s) => ({
      policy: persistGrant(s.policy, rule),
    }));
    if (!result.ok) throw new Error(result.error.message);
  };
}
