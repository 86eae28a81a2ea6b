/**
 * The supervisor's launcher: resolves the server's secrets and launches it through
 * `launchInstance` (the pipeline `warden exec` uses too), adapting the running instance to what
 * a session drives. The exit reason is passed on unchanged, so a limit is never taken for a crash.
 */
import { type LaunchError, launchError } from '../../app/contract/launch-error';
import { type Result, err, ok } from '../../app/result';
import type { LaunchPlan, SandboxBackend } from '../sandbox/backend';
import { type InstanceEgress, launchInstance } from '../sandbox/launch-instance';
import type { InstanceLauncher, Launched, LaunchRequest } from './launcher';

export type { InstanceEgress } from '../sandbox/launch-instance';

export interface SandboxLauncherDeps {
  backend: SandboxBackend;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The secret values the server's environment refers to; an error refuses the launch. */
  resolveSecrets: (request: LaunchRequest) => Promise<Result<Record<string, string>, LaunchError>>;
  /** Sets up the instance's egress; an error refuses the launch (fail closed). */
  egress?: (request: LaunchRequest) => Promise<Result<InstanceEgress | undefined, LaunchError>>;
  /** Follows what the sandbox refuses while the instance runs (macOS); returns the stop. */
  watch?: (request: LaunchRequest, plan: LaunchPlan) => (() => void) | undefined;
  /** Milliseconds between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
}

/** Builds the launcher used by the supervisor. */
export function createSandboxLauncher(d: SandboxLauncherDeps): InstanceLauncher {
  return {
    async launch(request): Promise<Result<Launched, LaunchError>> {
      const { server } = request;
      if (!server.launch)
        return err(launchError('internal', `${server.name} is a remote server: it has no command`));
      const secrets = await d.resolveSecrets(request);
      if (!secrets.ok) return secrets;
      const egress = d.egress;
      const watch = d.watch;
      const launched = await launchInstance({
        serverName: server.name,
        policy: server.policy,
        launch: server.launch,
        backend: d.backend,
        instanceDir: request.instanceDir,
        hostEnv: d.hostEnv,
        secrets: secrets.value,
        stopGraceMs: d.stopGraceMs ?? 2000,
        ...(egress ? { egress: () => egress(request) } : {}),
        ...(watch ? { watch: (plan: LaunchPlan) => watch(request, plan) } : {}),
      });
      if (!launched.ok) return launched;
      const running = launched.value;
      const { plan, child, exited } = running;
      return ok({
        process: {
          pid: child.pid,
          stdin: child.stdin!,
          stdout: child.stdout!,
          stderr: child.stderr!,
          exited,
          stop: async () => {
            await running.stop();
          },
        },
        backend: plan.backend,
        limitsNotEnforced: Object.keys(plan.unenforcedLimits ?? {}),
        ...(plan.workspaceKept && { workspaceKept: plan.workspaceKept }),
        ...(plan.closedFolders && { closedFolders: plan.closedFolders }),
      });
    },
  };
}
