/** The policy an instance launched with, as the audit log records it: names, never values. */
import type { LaunchPolicySummary } from '../../app/audit/audit-event';
import { limitNames, type Server } from '../../app/policy/policy-schema';

/** Summarizes `server`'s effective policy for a `sandbox.launch` event. */
export function launchSummary(server: Server, limitsNotEnforced: string[]): LaunchPolicySummary {
  const p = server.policy;
  const limits: Record<string, number> = {};
  for (const name of limitNames) {
    const value = p.limits[name];
    if (value !== undefined) limits[name] = value;
  }
  return {
    isolation: p.isolation,
    roots: p.filesystem.roots.map((r) => ({ path: r.path, access: r.access })),
    network: { mode: p.network.mode, allow: [...p.network.allow], deny: [...p.network.deny] },
    envPass: [...p.env.pass],
    envSet: Object.keys(p.env.set),
    limits,
    limitsNotEnforced,
  };
}
