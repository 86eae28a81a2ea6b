/** The launcher the core uses unless a test gives another: the platform backend plus egress. */
import { dirname } from 'node:path';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { isolationUnavailable } from '../../app/policy/isolation-error';
import { err, ok } from '../../app/result';
import { networkDecisionAudit } from '../egress/egress-audit';
import type { GrantInbox } from '../egress/grant-inbox';
import type { EgressDecisionEvent } from '../../app/contract/grants';
import { startHostPortEgress } from '../egress/host-port-egress';
import { currentEgressRuntime, startEgress } from '../egress/start-egress';
import type { SandboxBackend } from '../sandbox/backend';
import { usesHostPortEgress } from '../sandbox/select-backend';
import { seatbeltLogTag, watchViolations } from '../sandbox/macos/violation-log';
import { unsandboxedBackend } from '../sandbox/unsandboxed';
import type { InstanceLauncher } from '../supervisor/launcher';
import { createSandboxLauncher } from '../supervisor/sandbox-launcher';
import { findSandboxInitDir } from '../web/find-renderer-dir';
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
    unsandboxed: unsandboxedBackend(),
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
      if (server.policy.network.mode === 'none') return ok(undefined);
      const initDir = await findSandboxInitDir();
      if (!initDir) {
        return err(
          isolationUnavailable(
            'backend-failed',
            'the sandbox init was not found (out/sandbox-init, or app.asar.unpacked in an installed app)',
            'run "npm run build" in a source checkout, or reinstall the app',
          ),
        );
      }
      const options = {
        network: server.policy.network,
        server: server.name,
        instanceId,
        runtime: currentEgressRuntime(dirname(initDir)),
        grants: d.grants,
        onDecision: (e: EgressDecisionEvent) => d.audit(networkDecisionAudit(e)),
        onProblem: (m: string) =>
          console.error(`warden: ${server.name} (${instanceId}): egress: ${m}`),
      };
      // Seatbelt and Landlock have no network namespace to hold the init: the proxy runs in Warden.
      if (await usesHostPortEgress(d.backend)) {
        const hosted = await startHostPortEgress(options);
        if (!hosted.ok)
          return err(
            isolationUnavailable('backend-failed', hosted.error.message, hosted.error.remedy),
          );
        return ok(hosted.value);
      }
      const started = startEgress(options);
      if (!started.ok)
        return err(
          isolationUnavailable('backend-failed', started.error.message, started.error.remedy),
        );
      return ok(started.value);
    },
  });
}
