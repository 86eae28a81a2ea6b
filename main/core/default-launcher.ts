/** The launcher the core uses unless a test gives another: the platform backend plus egress. */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { networkDecisionAudit } from '../egress/egress-audit';
import type { GrantInbox } from '../egress/grant-inbox';
import type { SandboxBackend } from '../sandbox/backend';
import { seatbeltLogTag, watchViolations } from '../sandbox/macos/violation-log';
import type { InstanceLauncher } from '../supervisor/launcher';
import { createSandboxLauncher } from '../supervisor/sandbox-launcher';
import { launchEgress } from './launch-egress';
import type { SecretCache } from './secret-cache';

export interface DefaultLauncherDeps {
  backend: SandboxBackend;
  hostEnv: Readonly<Record<string, string | undefined>>;
  grants: GrantInbox;
  audit: (event: AuditEventInput) => void;
  secrets: SecretCache;
}

/** Builds the launcher: sandboxed launches through `backend` with egress, `off` plainly. */
export function defaultLauncher(d: DefaultLauncherDeps): InstanceLauncher {
  return createSandboxLauncher({
    backend: d.backend,
    hostEnv: d.hostEnv,
    resolveSecrets: ({ server }) => d.secrets.resolveFor(server),
    // Seatbelt reports refusals in the unified log, tagged per instance: each becomes an event.
    watch: ({ server, instanceId, instanceDir }, plan) => {
      if (plan.backend !== 'seatbelt') return undefined;
      const watch = watchViolations(
        seatbeltLogTag(instanceDir),
        (v) =>
          d.audit({
            kind: 'sandbox.violation',
            outcome: 'refused',
            server: server.name,
            instance: instanceId,
            backend: 'seatbelt',
            operation: v.operation,
            ...(v.target ? { target: v.target } : {}),
            process: v.process,
            pid: v.pid,
          }),
        () => undefined,
      );
      return () => watch.stop();
    },
    egress: (request) =>
      launchEgress(
        {
          backend: d.backend,
          grants: d.grants,
          onDecision: (e) => d.audit(networkDecisionAudit(e)),
        },
        request,
      ),
  });
}
