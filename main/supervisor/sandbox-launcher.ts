/**
 * The real launcher: compiles the server's policy with the sandbox backend and spawns the plan.
 * A server whose policy says `isolation: off` is the only one spawned as a plain process; any
 * failure to compile a sandboxed launch is returned as a typed refusal, never retried bare.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Duplex, Writable } from 'node:stream';
import { type Result, err, ok } from '../../app/result';
import type { CompileContext, LaunchPlan, SandboxBackend } from '../sandbox/backend';
import type {
  InstanceLauncher,
  Launched,
  LaunchFailure,
  LaunchRequest,
  ProcessExit,
} from './launcher';

/** Per-instance network plumbing (the egress broker), set up before launch. */
export interface InstanceEgress {
  /** What the backend needs: the init wrapper and the inherited channel on fd 3. */
  context: Pick<CompileContext, 'wrapper' | 'extraFds'>;
  /** Extra environment for the server (proxy variables). */
  env: Record<string, string>;
  /** Called with the host end of fd 3 once the process is spawned. */
  attach(channel: Duplex): void;
  close(): Promise<void>;
}

export interface SandboxLauncherDeps {
  backend: SandboxBackend;
  /** The plain-process backend used only for `isolation: off`. */
  unsandboxed: SandboxBackend;
  hostEnv: Readonly<Record<string, string | undefined>>;
  resolveSecrets: (request: LaunchRequest) => Promise<Record<string, string>>;
  egress?: (request: LaunchRequest) => Promise<InstanceEgress | undefined>;
  /** Seconds between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
}

/** Builds the launcher used by the supervisor. */
export function createSandboxLauncher(d: SandboxLauncherDeps): InstanceLauncher {
  return {
    async launch(request): Promise<Result<Launched, LaunchFailure>> {
      const { server } = request;
      const backend = server.policy.isolation === 'off' ? d.unsandboxed : d.backend;
      const egress = server.policy.isolation === 'off' ? undefined : await d.egress?.(request);
      const compiled = await backend.compile(server.policy, server.launch, {
        instanceDir: request.instanceDir,
        hostEnv: d.hostEnv,
        secrets: await d.resolveSecrets(request),
        ...(egress?.context ?? {}),
      });
      if (!compiled.ok) {
        await egress?.close();
        return err({ kind: 'isolation', error: compiled.error });
      }
      const plan: LaunchPlan = compiled.value;
      if (egress) Object.assign(plan.env, egress.env);
      const spawned = spawnLaunchPlan(
        plan,
        (egress?.context.extraFds ?? 0) > 0,
        d.stopGraceMs ?? 2000,
      );
      if (!spawned.ok) {
        await egress?.close();
        return err({ kind: 'spawn', message: spawned.error });
      }
      const { process: proc, channel } = spawned.value;
      if (egress && channel) egress.attach(channel);
      void proc.exited.then(() => egress?.close());
      return ok({ process: proc, backend: plan.backend });
    },
  };
}

/** Spawns a plan: fd 3 is the egress channel when asked for, then one fd per `fdData` entry. */
export function spawnLaunchPlan(
  plan: LaunchPlan,
  withChannel: boolean,
  stopGraceMs: number,
): Result<{ process: Launched['process']; channel: Duplex | undefined }, string> {
  const extra = (withChannel ? 1 : 0) + plan.fdData.length;
  const stdio: StdioOptions = Array.from({ length: 3 + extra }, () => 'pipe' as const);
  let child: ChildProcess;
  try {
    child = spawn(plan.argv[0], plan.argv.slice(1), {
      stdio,
      env: plan.env,
      detached: plan.backend === 'none',
    });
  } catch (e) {
    return err((e as Error).message);
  }
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  plan.fdData.forEach((data, i) => {
    const fd = child.stdio[3 + (withChannel ? 1 : 0) + i] as Writable | null;
    fd?.end(data);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const pid = child.pid;
    const signal = (sig: NodeJS.Signals) => {
      try {
        // A plain process leads its own group, so the group goes with it; bwrap's pid namespace
        // takes every descendant with it when its init dies.
        if (pid !== undefined && plan.backend === 'none') process.kill(-pid, sig);
        else child.kill(sig);
      } catch {
        /* already gone */
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), stopGraceMs);
    await exited;
    clearTimeout(timer);
  };
  if (child.pid === undefined) return err(`could not start ${plan.argv[0]}`);
  return ok({
    process: {
      pid: child.pid,
      stdin: child.stdin!,
      stdout: child.stdout!,
      stderr: child.stderr!,
      exited,
      stop,
    },
    channel: withChannel ? (child.stdio[3] as Duplex) : undefined,
  });
}
