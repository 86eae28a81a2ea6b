/** The call guards of one made-up instance over a fixed policy and secrets, for tests and benches. */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { type AuditSecret, redactSecrets } from '../../app/audit/redact';
import type { Policy } from '../../app/policy/policy-schema';
import { ApprovalInbox } from '../../main/gateway/approval-inbox';
import { type CallGuardDeps, createCallGuards } from '../../main/gateway/call-guards';
import { hostPathFacts } from '../../main/gateway/host-paths';

/**
 * Guards reading this host's paths, with `secrets` held for the user (`own` among them being the
 * server's); what they audit is collected in `events`. `extra` adds the guard layers or a home.
 */
export function standaloneGuards(
  policy: Policy,
  secrets: readonly AuditSecret[],
  own: readonly AuditSecret[] = [],
  extra: Pick<Partial<CallGuardDeps>, 'layers' | 'home'> = {},
) {
  const events: AuditEventInput[] = [];
  const approvals = new ApprovalInbox((e) => events.push(e));
  const guards = createCallGuards({
    server: 's',
    instance: 's#1',
    policy: () => policy,
    paths: hostPathFacts,
    secrets: () => secrets,
    ownSecrets: () => own,
    approvals,
    audit: (e) => events.push(e),
    redact: (v) => redactSecrets(v, secrets),
    ...extra,
  });
  return { guards, events, approvals };
}
