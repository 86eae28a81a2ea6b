/**
 * What `servers.update` may change of a policy: the fields the user owns. The tool definitions the
 * gateway pins are the gateway's record of what the server showed, so an update never carries
 * them (they are dropped from the input and the stored ones kept), and a secret reference may only
 * name this server's own secret for that variable, so that no edit hands one server another's.
 */
import { secretRef } from '../policy/policy-edits';
import type { Policy, UserPolicy } from '../policy/policy-schema';
import type { FieldError } from '../policy/validate';
import { type Result, err, ok } from '../result';

/**
 * The stored policy of `server` with the user's fields of `next` applied: the pinned tools stay
 * the stored ones, and a secret reference that is neither the stored one for its variable nor
 * the server's own is refused, naming the field.
 */
export function applyUserPolicy(
  server: string,
  stored: Policy,
  next: UserPolicy,
): Result<Policy, FieldError[]> {
  const wrong: FieldError[] = [];
  for (const [variable, value] of Object.entries(next.env.set)) {
    if (value.kind !== 'secret') continue;
    const before = stored.env.set[variable];
    const kept = before?.kind === 'secret' && before.ref === value.ref;
    if (!kept && value.ref !== secretRef(server, variable)) {
      wrong.push({
        field: `policy.env.set.${variable}`,
        message: `may only refer to this server's own secret "${secretRef(server, variable)}"`,
      });
    }
  }
  if (wrong.length > 0) return err(wrong);
  return ok({ ...next, tools: { ...next.tools, pinned: stored.tools.pinned } });
}
