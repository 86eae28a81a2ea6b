/**
 * A stored server changed, through this core or in config.json: its running instances follow a
 * change of only their tools (nothing to restart for), the change is recorded once, by the core
 * of the Warden process that made it or first took it in, and the servers are published again.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { appliesLive, changedPaths } from '../../app/policy/policy-diff';
import type { ServerChange } from '../config/config-store';
import type { Supervisor } from '../supervisor/supervisor';

/** The listener the core gives its config store for the changes of servers. */
export function followServerChange(d: {
  supervisor: Supervisor;
  record: (event: AuditEventInput) => void;
  /** Publishes every server's view, to whoever watches. */
  publishServers: () => void;
}): (change: ServerChange) => void {
  return ({ name, before, after, reloaded }) => {
    const changed = changedPaths(
      before ? { launch: before.launch, policy: before.policy } : undefined,
      after ? { launch: after.launch, policy: after.policy } : undefined,
    );
    // Instances follow a change of their tools as it is made: nothing to restart for.
    if (before && after && changed.length > 0 && appliesLive(changed))
      d.supervisor.followLiveChange(name, before.revision, after.revision);
    // A change another Warden process made, or took in first, is recorded by that one's core.
    if (changed.length > 0 && reloaded !== 'recorded') {
      d.record({
        kind: 'policy.changed',
        outcome: 'info',
        server: name,
        revisionBefore: before?.revision ?? 0,
        revisionAfter: after?.revision ?? 0,
        changed,
        // Taken in from the file, made by no Warden process.
        ...(reloaded === 'to-record' ? { via: 'file' as const } : {}),
      });
    }
    d.publishServers();
  };
}
