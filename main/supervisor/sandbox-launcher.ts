/**
 * The real launcher: compiles the server's policy with the sandbox backend and spawns the plan.
 * A server whose policy says `isolation: off` is the only one spawned as a plain process; any
 * failure to compile a sandboxed launch is returned as a typed refusal, never retried bare.
 */
import type { ChildProcess } from 'node:child_process';
import type { IsolationUnavailable } from '../../app/policy/isolation-error';
import { type Result, err, ok } from '../../app/result';
import type { CompileContext, LaunchPlan, SandboxBackend } from '../sandbox/backend';
import { mergeEgressEnv } from '../egress/start-egress';
import { spawnPlan } from '../sandbox/spawn-plan';
import type {
  InstanceLauncher,
  Launched,
  LaunchFailure,
  LaunchRequest,
  ProcessExit,
} from './launcher';

/** Per-instance network plumbing (the egress broker), set up before launch. */
export interface InstanceEgress {
  /** What the backend needs: the init wrapper and the IPC channel on fd 3. */
  context: Pick<CompileContext, 'wrapper' | 'extraFds' | 'egressPort' | 'readableFiles'>;
  /** Extra environment for the server (proxy variables). */
  env: Record<string, string>;
  /** Called with the spawned process, whose init hands over its proxy socket on fd 3. */
  attach(child: ChildProcess): void;
  close(): Promise<void>;
}

export interface SandboxLauncherDeps {
  backend: SandboxBackend;
  /** The plain-process backend used only for `isolation: off`. */
  unsandboxed: SandboxBackend;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The secret values the server's environment refers to; an error refuses the launch. */
  resolveSecrets: (request: LaunchRequest) => Promise<Result<Record<string, string>, string>>;
  /** Sets up the instance's egress; an error refuses the launch (fail closed). */
  egress?: (
    request: LaunchRequest,
  ) => Promise<Result<InstanceEgress | undefined, IsolationUnavailable>>;
  /** Follows what the sandbox refuses while the instance runs (macOS); returns the stop. */
  watch?: (request: LaunchRequest, plan: LaunchPlan) => (() => void) | undefined;
  /** Seconds between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
}

/** Builds the launcher used by the supervisor. */
export function createSandboxLauncher(d: SandboxLauncherDeps): InstanceLauncher {
  return {
    async launch(request): Promise<Result<Launched, LaunchFailure>> {
      const { server } = request;
      const backend = server.policy.isolation === 'off' ? d.unsandboxed : d.backend;
      let egress: InstanceEgress | undefined;
      if (server.policy.isolation !== 'off' && d.egress) {
        const prepared = await d.egress(request);
        if (!prepared.ok) return err({ kind: 'isolation', error: prepared.error });
        egress = prepared.value;
      }
      const secrets = await d.resolveSecrets(request);
      if (!secrets.ok) {
        await egress?.close();
        return err({ kind: 'spawn', message: secrets.error });
      }
      const compiled = await backend.compile(server.policy, server.launch, {
        instanceDir: request.instanceDir,
        hostEnv: d.hostEnv,
        secrets: secrets.value,
        ...(egress?.context ?? {}),
      });
      if (!compiled.ok) {
        await egress?.close();
        return err({ kind: 'isolation', error: compiled.error });
      }
      const plan: LaunchPlan = compiled.value;
      if (egress) mergeEgressEnv(plan.env, egress.env);
      const spawned = await spawnForSupervisor(
        plan,
        (egress?.context.extraFds ?? 0) > 0,
        d.stopGraceMs ?? 2000,
      );
      if (!spawned.ok) {
        await egress?.close();
        return err({ kind: 'spawn', message: spawned.error });
      }
      const { process: proc, child } = spawned.value;
      if (egress?.context.extraFds) egress.attach(child);
      const unwatch = d.watch?.(request, plan);
      void proc.exited.then(() => {
        unwatch?.();
        return egress?.close();
      });
      return ok({
        process: proc,
        backend: plan.backend,
        limitsNotEnforced: Object.keys(plan.unenforcedLimits ?? {}),
      });
    },
  };
}

/** Spawns a plan with spawnPlan (wall time, tree kill, leaked fds closed) and adapts it. */
async function spawnForSupervisor(
  plan: LaunchPlan,
  withChannel: boolean,
  stopGraceMs: number,
): Promise<Result<{ process: Launched['process']; child: ChildProcess }, string>> {
  const spawned = await spawnPlan(plan, { extraFds: withChannel ? ['ipc'] : [], stopGraceMs });
  const { child } = spawned;
  if (child.pid === undefined) {
    const exit = await spawned.exited;
    return err(exit.error ?? `could not start ${plan.argv[0]}`);
  }
  const exited: Promise<ProcessExit> = spawned.exited.then((e) => ({
    code: e.code,
    signal: e.signal,
  }));
  return ok({
    process: {
      pid: child.pid,
      stdin: child.stdin!,
      stdout: child.stdout!,
      stderr: child.stderr!,
      exited,
      stop: async () => {
        await spawned.stop();
      },
    },
    child,
  });
}
