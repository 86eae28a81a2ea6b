/**
 * A tool gate over a tools policy held in memory, for the gate's tests: what it pins is kept in
 * that policy, what it records (and what the approval inbox records) is listed in `events`.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import type { ToolDefinition, ToolsPolicy } from '../../app/policy/policy-schema';
import { ApprovalInbox } from '../../main/gateway/approval-inbox';
import { createToolGate } from '../../main/gateway/tool-gate';
import { DriftRegistry } from '../../main/gateway/tool-drift';
import type { ToolListings } from '../../main/gateway/tool-listings';

export function pinningGate(
  options: {
    server?: string;
    pinned?: Record<string, ToolDefinition>;
    listings?: ToolListings;
  } = {},
) {
  const events: AuditEventInput[] = [];
  let policy: ToolsPolicy = { ...defaultPolicy().tools, pinned: options.pinned ?? {} };
  const server = options.server ?? 's';
  const drift = new DriftRegistry();
  const gate = createToolGate({
    server,
    instance: `${server}#1`,
    policy: () => policy,
    pin: (definitions) => {
      policy = { ...policy, pinned: { ...policy.pinned, ...definitions } };
      return Promise.resolve();
    },
    drift,
    ...(options.listings ? { listings: options.listings } : {}),
    approvals: new ApprovalInbox(
      (e) => events.push(e),
      () => Promise.resolve(),
    ),
    audit: (e) => events.push(e),
    redact: (v) => v,
  });
  return { gate, events, drift, pinned: () => policy.pinned };
}
