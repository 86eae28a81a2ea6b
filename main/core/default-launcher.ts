/** The launcher the core uses unless a test gives another: the platform backend plus egress. */
import type { AuditEventInput } from '../../app/audit/audit-event';
import { networkDecisionAudit } from '../egress/egress-audit';
import type { GrantInbox } from '../egress/grant-inbox';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { startHostPortEgress } from '../egress/host-port-egress';
import { startEgress } from '../egress/start-egress';
import type { SandboxBackend } from '../sandbox/backend';
import { usesHostPortEgress } from '../sandbox/select-backend';
import { seatbeltLogTag, watchViolations } from '../sandbox/macos/violation-log';
import { sandboxEgressRuntime } from '../sandbox/launch-instance';
import type { InstanceLauncher } from '../supervisor/launcher';
import { createSandboxLauncher } from '../supervisor/sandbox-launcher';
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
    egress: async ({ server, instanceId }) => {
      const runtime = await sandboxEgressRuntime();
      if (!runtime.ok) return runtime;
      const options = {
        network: server.policy.network,
        server: server.name,
        instanceId,
        runtime: runtime.value,
        grants: d.grants,
        onDecision: (e: EgressDecisionEvent) => d.audit(networkDecisionAudit(e)),
        onProblem: (m: string) =>
          console.error(`warden: ${server.name} (${instanceId}): egress: ${m}`),
      };
      // Seatbelt and Landlock have no network namespace to hold the init: the proxy runs in Warden.
      if (await usesHostPortEgress(d.backend)) {
        return startHostPortEgress(options);
      }
      // An invalid pattern refuses the launch with its field errors kept.
      return startEgress(options);
    },
  });
}
