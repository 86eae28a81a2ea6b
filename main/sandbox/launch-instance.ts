/**
 * The one launch pipeline, used by `warden exec` and by the supervisor: picks the backend (the
 * plain-process one only for `isolation: off`), sets up egress, compiles the policy, adds the
 * egress environment, spawns the plan and hands the egress channel over. The exit comes back
 * exactly as the spawner saw it (code, signal and why: on its own, stopped, or the wall-time
 * limit), so every caller can tell a limit from a crash.
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import {
  type EgressRuntime,
  INIT_PROGRAM,
  currentEgressRuntime,
  mergeEgressEnv,
} from '../egress/egress-runtime';
import type { CompileContext, LaunchPlan, SandboxBackend } from './backend';
import { findSandboxInitDir } from './built-output';
import { type PlanExit, type SpawnPlanOptions, spawnPlan } from './spawn-plan';
import { unsandboxedBackend } from './unsandboxed';
import { MAX_WATCHED_FOLDERS, watchWorkspace } from './workspace-watch';

/**
 * How long after the spawn the workspace watch begins: its first walk (a few hundred ms of CPU
 * for a writable npm cache) would otherwise delay the server's first answer on a 2-CPU machine.
 * What the server makes meanwhile is found by that walk, a second later.
 */
const WATCH_AFTER_MS = 1000;

/** A limit's cgroup could not be created: the limit cannot be enforced on this launch. */
const LIMITS_REMEDY =
  'check that Warden may create cgroups here (see `warden doctor`), or remove the limit or mark it best-effort (--best-effort LIMIT)';

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

export interface LaunchInstanceOptions {
  /** The configured server this instance is of (none for `warden exec`). */
  serverName?: string;
  policy: Policy;
  launch: LaunchSpec;
  /** This platform's sandbox backend; `isolation: off` runs through the plain-process one. */
  backend: SandboxBackend;
  instanceDir: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Secret values for the policy's `env.set` entries of kind `secret`. */
  secrets: Readonly<Record<string, string>>;
  /** Sets up egress when the sandboxed policy has a network; an error refuses (fail closed). */
  egress?: () => Promise<Result<InstanceEgress | undefined, LaunchError>>;
  /** Called with the plan just before it is spawned (warnings about limits, say). */
  beforeSpawn?: (plan: LaunchPlan) => void;
  /** Follows the running sandbox (macOS refusals); the returned stop is called on exit. */
  watch?: (plan: LaunchPlan) => (() => void) | undefined;
  stdio?: SpawnPlanOptions['stdio'];
  stopGraceMs?: number;
}

export interface RunningInstance {
  plan: LaunchPlan;
  child: ChildProcess;
  /** Settles once the process is gone and its egress closed, with the exit unchanged. */
  exited: Promise<PlanExit>;
  /** Stops the whole tree; settles as `exited` does. */
  stop(): Promise<PlanExit>;
}

/** Launches one instance of a policy; never spawns a sandboxed policy without its sandbox. */
export async function launchInstance(
  o: LaunchInstanceOptions,
): Promise<Result<RunningInstance, LaunchError>> {
  const off = o.policy.isolation === 'off';
  const backend = off ? unsandboxedBackend() : o.backend;
  let egress: InstanceEgress | undefined;
  if (!off && o.policy.network.mode !== 'none' && o.egress) {
    const prepared = await o.egress();
    if (!prepared.ok) return prepared;
    egress = prepared.value;
  }
  const compiled = await backend.compile(o.policy, o.launch, {
    ...(o.serverName === undefined ? {} : { serverName: o.serverName }),
    instanceDir: o.instanceDir,
    hostEnv: o.hostEnv,
    secrets: o.secrets,
    ...(egress?.context ?? {}),
  });
  if (!compiled.ok) {
    await egress?.close();
    return compiled;
  }
  const plan = compiled.value;
  if (egress) mergeEgressEnv(plan.env, egress.env);
  o.beforeSpawn?.(plan);
  const withChannel = (egress?.context.extraFds ?? 0) > 0;
  const cwd = plan.backend === 'none' ? o.launch.cwd : undefined;
  const spawned = await spawnPlan(plan, {
    extraFds: withChannel ? ['ipc'] : [],
    ...(o.stdio ? { stdio: o.stdio } : {}),
    ...(o.stopGraceMs === undefined ? {} : { stopGraceMs: o.stopGraceMs }),
    ...(cwd === undefined ? {} : { cwd }),
  });
  const { child } = spawned;
  if (child.pid === undefined) {
    const exit = await spawned.exited;
    await egress?.close();
    const message = exit.error ?? `could not start ${plan.argv[0]}`;
    return err(
      exit.refusedBy === 'limits'
        ? launchError('limit-unsupported', message, LIMITS_REMEDY)
        : launchError('spawn-failed', message),
    );
  }
  if (egress && withChannel) egress.attach(child);
  const unwatch = o.watch?.(plan);
  // What the sandbox cannot keep from being created is watched for: the server is killed at once.
  let stoppedFor: string | undefined;
  const workspace =
    plan.workspaceWatch &&
    watchWorkspace(
      plan.workspaceWatch,
      (why) => {
        stoppedFor = why;
        void spawned.stop('workspace-file', 0);
      },
      MAX_WATCHED_FOLDERS,
      WATCH_AFTER_MS,
    );
  const exited = spawned.exited.then(async (exit) => {
    unwatch?.();
    // A sweep that failed is said as such: what it was to move may still be there.
    const moved = workspace
      ? await workspace.close().catch((e: Error) => [
          {
            path: plan.workspaceWatch!.roots.join(', '),
            error: `its last sweep failed: ${e.message}`,
          },
        ])
      : [];
    await egress?.close();
    return moved.length > 0 || stoppedFor !== undefined
      ? {
          ...exit,
          reason: 'workspace-file' as const,
          workspaceFiles: moved,
          ...(stoppedFor === undefined ? {} : { stoppedFor }),
        }
      : exit;
  });
  return ok({ plan, child, exited, stop: () => spawned.stop().then(() => exited) });
}

/**
 * Where the sandbox init and fetch preload are, for an instance's egress; without them no
 * network can be brokered, so the launch is refused with what to do.
 */
export async function sandboxEgressRuntime(
  remedy?: string,
): Promise<Result<EgressRuntime, LaunchError>> {
  const initDir = await findSandboxInitDir();
  if (initDir) {
    // The compiled init is used only on Linux, where the build makes it.
    const program = process.platform === 'linux' && (await isProgram(join(initDir, INIT_PROGRAM)));
    return ok(currentEgressRuntime(dirname(initDir), program));
  }
  return err(
    launchError(
      'build-output-missing',
      'the sandbox init was not found (out/sandbox-init, or app.asar.unpacked in an installed app), so no network can be brokered',
      remedy,
    ),
  );
}

/**
 * Whether `path` is a file this user may run: a compiled init that cannot be run (a copy without
 * its mode bits, say) leaves the script init in its place rather than failing every launch.
 */
export async function isProgram(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
