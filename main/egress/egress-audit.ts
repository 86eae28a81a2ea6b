/**
 * Egress and grant events in the audit log's shape (`network.decision`, `grant.requested`,
 * `grant.decided`), so that the composition root can pipe the broker and the grant inbox into
 * the audit store without knowing their internals.
 */
import type { AuditEventOf } from '../../app/audit/audit-event';
import type {
  EgressDecisionEvent,
  GrantDecidedEvent,
  PendingGrant,
} from '../../app/contract/grants';

/** One connection attempt as a `network.decision` audit event. */
export function networkDecisionAudit(e: EgressDecisionEvent): AuditEventOf<'network.decision'> {
  const rule = e.rule ?? '';
  const by =
    e.reason === 'ask-timeout'
      ? 'timeout'
      : /^(allow|deny) /.test(rule)
        ? 'rule'
        : /grant/.test(rule)
          ? 'grant'
          : 'default';
  const out: AuditEventOf<'network.decision'> = {
    kind: 'network.decision',
    ts: e.at,
    outcome: e.decision === 'allowed' ? 'ok' : 'refused',
    server: e.server,
    instance: e.instance,
    host: e.host,
    port: e.port,
    decision: e.decision === 'allowed' ? 'allow' : 'deny',
    by,
    bytesUp: e.bytesUp,
    bytesDown: e.bytesDown,
    durationMs: e.durationMs,
  };
  if (e.address) out.resolvedAddress = e.address;
  if (e.rule) out.rule = e.rule;
  if (e.reason) out.reason = e.message ? `${e.reason}: ${e.message}` : e.reason;
  return out;
}

/** A new pending grant as a `grant.requested` audit event. */
export function grantRequestedAudit(g: PendingGrant): AuditEventOf<'grant.requested'> {
  const timeoutSeconds = Math.round((Date.parse(g.expiresAt) - Date.parse(g.createdAt)) / 1000);
  return {
    kind: 'grant.requested',
    ts: g.createdAt,
    outcome: 'info',
    server: g.server,
    instance: g.instance,
    grantId: g.id,
    host: g.host,
    port: g.port,
    ...(timeoutSeconds > 0 ? { timeoutSeconds } : {}),
  };
}

/**
 * A finished grant as a `grant.decided` audit event; the saved rule of an "always" decision
 * follows in a `policy.changed` event, and an instance that ended before a decision is recorded
 * as a `deny` by `policy`.
 */
export function grantDecidedAudit(e: GrantDecidedEvent): AuditEventOf<'grant.decided'> {
  const o = e.outcome;
  const decision =
    o === 'allow-once' || o === 'allow-session' || o === 'allow-always' || o === 'deny-always'
      ? o
      : 'deny';
  return {
    kind: 'grant.decided',
    ts: e.at,
    outcome: decision === 'deny' || decision === 'deny-always' ? 'refused' : 'ok',
    server: e.grant.server,
    instance: e.grant.instance,
    grantId: e.grant.id,
    host: e.grant.host,
    port: e.grant.port,
    decision,
    by: o === 'timeout' ? 'timeout' : o === 'cancelled' ? 'policy' : 'user',
  };
}
