/**
 * Spawns a LaunchPlan: writes each `fdData` entry to its fd (after any extra fds such as the egress
 * channel on fd 3), enforces the wall-time limit, and stops the whole process tree. A sandboxed
 * plan's tree lives in bwrap's pid namespace, which dies with its init; a plain plan (isolation
 * off) leads its own process group. bwrap runs with --die-with-parent, so if Warden dies — even by
 * SIGKILL — the kernel kills the sandbox too.
 */
import { ChildProcess, type IOType, spawn } from 'node:child_process';
import { mkdir, open, rmdir } from 'node:fs/promises';
import type { Duplex, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LaunchPlan } from './backend';
import { inheritableFds, maskLeakedFds } from './leaked-fds';
import type { MovedWorkspaceFile } from './workspace-aside';

export interface SpawnPlanOptions {
  /** stdin, stdout, stderr (default: all 'pipe'). */
  stdio?: [IOType | number, IOType | number, IOType | number];
  /**
   * fds handed on from fd 3, before the plan's own fds: 'pipe' makes a socket pair, 'ipc' Node's
   * IPC channel (the egress hand-over; messages arrive on `child`).
   */
  extraFds?: Array<'pipe' | 'ipc' | number>;
  /** Milliseconds between SIGTERM and SIGKILL in stop(). Default 2000. */
  stopGraceMs?: number;
  cwd?: string;
}

export interface PlanExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /**
   * Why it ended: on its own, by stop(), by the wall-time limit, stopped for a workspace file it
   * created (launch-instance.ts), or it never started.
   */
  reason: 'exited' | 'stopped' | 'wall-time' | 'workspace-file' | 'spawn-failed';
  /** The spawn error, when reason is spawn-failed. */
  error?: string;
  /** What refused a spawn-failed plan before any process: its cgroup limits could not be set up. */
  refusedBy?: 'limits';
  /** Workspace files it created in a writable folder, moved aside once it ended. */
  workspaceFiles?: MovedWorkspaceFile[];
  /** Why it was stopped for one (reason 'workspace-file'): what it created, or what failed. */
  stoppedFor?: string;
}

export interface SpawnedPlan {
  child: ChildProcess;
  /** Host ends of `extraFds` entries given as 'pipe' (others null), in order from fd 3. */
  extraStreams: Array<Duplex | null>;
  /** Settles once the process has exited and its cgroups are removed. */
  exited: Promise<PlanExit>;
  /**
   * Stops the whole tree (SIGTERM, then SIGKILL after the grace period; at once with a grace of
   * 0), for `why` (default 'stopped').
   */
  stop(why?: PlanExit['reason'], graceMs?: number): Promise<PlanExit>;
}

async function removeDirs(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    // A cgroup can be removed only once its last process is reaped, which may lag the exit.
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') break;
        await sleep(50);
      }
    }
  }
}

/**
 * Creates the plan's directories (cgroups), each of which must be new; on failure removes the
 * ones made and returns why.
 */
async function createDirs(dirs: readonly string[]): Promise<string | undefined> {
  const made: string[] = [];
  for (const dir of dirs) {
    try {
      await mkdir(dir);
      made.push(dir);
    } catch (e) {
      await removeDirs(made);
      return `could not set up the cgroup limits: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/** What spawnPlan returns for a plan it refused to spawn: no process, the reason as its exit. */
function notSpawned(error: string, extra: number): SpawnedPlan {
  const exited = Promise.resolve<PlanExit>({
    code: null,
    signal: null,
    reason: 'spawn-failed',
    error,
    refusedBy: 'limits',
  });
  return {
    child: new ChildProcess(),
    extraStreams: Array.from({ length: extra }, () => null),
    exited,
    stop: () => exited,
  };
}

const killGroup = (pgid: number) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* no member left */
  }
};

/**
 * A plain process (isolation off) has no pid namespace to die with: a small watchdog holds a pipe
 * from Warden and kills the process group when the pipe closes, which is when Warden dies, even
 * by SIGKILL. It is itself killed first when the process ends normally, so it never signals a
 * group id that has been reused.
 */
function groupWatchdog(pgid: number): ChildProcess | undefined {
  try {
    const dog = spawn('/bin/sh', ['-c', `read _; kill -KILL -${pgid}`], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    dog.on('error', () => undefined);
    dog.stdin?.on('error', () => undefined);
    dog.unref();
    (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return dog;
  } catch {
    return undefined;
  }
}

/**
 * Spawns `plan`. Never throws: a failed spawn settles `exited` with reason 'spawn-failed'.
 * Descriptors this process inherited without close-on-exec are replaced by /dev/null in the
 * child (see leaked-fds.ts), so the sandbox never receives a socket or pipe from Warden's parent.
 */
export async function spawnPlan(
  plan: LaunchPlan,
  options: SpawnPlanOptions = {},
): Promise<SpawnedPlan> {
  const extra = options.extraFds ?? [];
  // Created here, in this process, rather than by the plan's shell prefix: no extra processes
  // before the sandbox starts. A cgroup that cannot be created refuses the spawn.
  const refused = await createDirs(plan.createDirs ?? []);
  if (refused !== undefined) return notSpawned(refused, extra.length);
  const passed = [
    ...(options.stdio ?? ['pipe', 'pipe', 'pipe']),
    ...extra,
    ...plan.fdData.map(() => 'pipe' as const),
  ];
  const leaked = inheritableFds().filter((fd) => fd >= passed.length);
  const devNull = leaked.length > 0 ? await open('/dev/null', 'r') : undefined;
  const stdio = devNull ? maskLeakedFds(passed, leaked, devNull.fd) : passed;
  const plain = plan.backend === 'none';
  const child = spawn(plan.argv[0], plan.argv.slice(1), {
    stdio,
    env: plan.env,
    // A plain process leads its own group so that stop() reaches its descendants.
    detached: plain,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  // uv_spawn returns once the child has exec'd, so the child holds its own copies by now.
  void devNull?.close();
  const after = plan.afterSpawn?.().catch(() => undefined);
  const watchdog = plain && child.pid !== undefined ? groupWatchdog(child.pid) : undefined;
  let reason: PlanExit['reason'] = 'exited';
  let spawnError: string | undefined;
  const exited = new Promise<PlanExit>((resolve) => {
    child.once('error', (e) => {
      spawnError = e.message;
      reason = 'spawn-failed';
      if (child.pid === undefined) {
        void Promise.all([removeDirs(plan.cleanupDirs ?? []), after]).then(() =>
          resolve({ code: null, signal: null, reason: 'spawn-failed', error: e.message }),
        );
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(wallTimer);
      watchdog?.kill('SIGKILL');
      void Promise.all([removeDirs(plan.cleanupDirs ?? []), after]).then(() =>
        resolve({ code, signal, reason, ...(spawnError ? { error: spawnError } : {}) }),
      );
    });
  });
  plan.fdData.forEach((data, i) => {
    const stream = child.stdio[3 + extra.length + i] as Writable | null | undefined;
    stream?.on('error', () => undefined);
    stream?.end(data);
  });
  const signal = (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      if (plain) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      /* already gone */
    }
  };
  const stop = async (
    why: PlanExit['reason'] = 'stopped',
    graceMs = options.stopGraceMs ?? 2000,
  ) => {
    const running = child.exitCode === null && child.signalCode === null;
    if (running && reason === 'exited') reason = why;
    // landlock-exec kills what it reaps at once on SIGUSR1: a SIGKILL to it would leave its
    // orphans (a daemon the server started) running. SIGKILL follows if it has not ended in 5 s.
    const atOnce = plan.backend === 'landlock' ? 'SIGUSR1' : 'SIGKILL';
    signal(graceMs === 0 ? atOnce : 'SIGTERM');
    if (graceMs === 0 && atOnce === 'SIGUSR1') graceMs = 5000;
    // A plain process's group can outlive its leader (a child that ignores SIGTERM): it is
    // killed at the end of the grace whether the leader is gone or not. The group's id is not
    // given to another process while any member lives, and no signal reaches an empty group.
    const pid = child.pid;
    const timer =
      graceMs > 0
        ? setTimeout(
            () => (plain && pid !== undefined ? killGroup(pid) : signal('SIGKILL')),
            graceMs,
          )
        : undefined;
    const result = await exited;
    if (plain) timer?.unref();
    else clearTimeout(timer);
    return result;
  };
  const wallTimer =
    plan.wallTimeMs === undefined
      ? undefined
      : setTimeout(() => void stop('wall-time', 0), plan.wallTimeMs);
  return {
    child,
    extraStreams: extra.map((kind, i) => (kind === 'pipe' ? (child.stdio[3 + i] as Duplex) : null)),
    exited,
    stop: (why, graceMs) => stop(why, graceMs),
  };
}
