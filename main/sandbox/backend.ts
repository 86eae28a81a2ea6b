/**
 * The sandbox backend interface: `probe()` says what this host can enforce; `compile()` turns a
 * policy and launch spec into a LaunchPlan or a typed LaunchError error. `compile` never
 * spawns, and nothing here ever retries without the sandbox.
 */
import type { DoctorReport } from '../../app/contract/doctor';
import type { LaunchError } from '../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import type { WorkspaceWatchSpec } from './workspace-aside';

/** What a backend needs besides the policy: where the instance's private files live, etc. */
export interface CompileContext {
  /** The server launched, where there is one (the hidden-path search keeps its list by it). */
  serverName?: string;
  /** A private directory for this instance (created by the caller, removed when it ends). */
  instanceDir: string;
  /** Host environment to take `env.pass` variables from. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Secret values resolved by the caller for `env.set` entries of kind `secret`. */
  secrets: Readonly<Record<string, string>>;
  /** Extra fds to hand to the sandboxed process, in order from fd 3 (e.g. the egress channel). */
  extraFds?: number;
  /**
   * A command prefix run inside the sandbox before the server (the egress init):
   * `[...wrapper.argv, '--', command, ...args]`, with host paths bound read-only.
   */
  wrapper?: { argv: string[]; readOnlyBinds: string[] };
  /**
   * Where no private network namespace exists (macOS): the host loopback port of this instance's
   * egress proxy, the only destination the sandbox may connect to.
   */
  egressPort?: number;
  /**
   * Host files the sandboxed process must be able to read where no wrapper binds them (macOS:
   * the fetch preload named in NODE_OPTIONS).
   */
  readableFiles?: string[];
}

/** Everything needed to spawn the sandboxed process. */
export interface LaunchPlan {
  /** argv[0] is the program to spawn. */
  argv: [string, ...string[]];
  env: Record<string, string>;
  /**
   * Data to write to extra fds before spawn, e.g. the seccomp program. Each entry is passed as
   * fd `3 + index` after any `CompileContext.extraFds`.
   */
  fdData: Buffer[];
  /** The backend that will enforce it ("bwrap", "seatbelt", "none" for isolation off). */
  backend: string;
  /** Limits that are enforced, and how. */
  enforcedLimits: Record<string, string>;
  /** Best-effort limits this host cannot enforce, and why (shown beside the enforced ones). */
  unenforcedLimits?: Record<string, string>;
  /** Wall-time limit: the spawner kills the whole sandbox after this long (spawn-plan.ts). */
  wallTimeMs?: number;
  /**
   * Directories (cgroups) the spawner creates, each new, before it spawns; one that cannot be
   * created refuses the spawn. The plan's own prefix still writes their limits and moves the
   * sandbox into them before anything of it runs.
   */
  createDirs?: string[];
  /** Directories (cgroups) the spawner removes once the process has exited. */
  cleanupDirs?: string[];
  /**
   * Work the backend leaves for after the spawn, so that it never delays it (writing the
   * hidden-path search's records). The spawner starts it once the process is spawned and reports
   * the exit only after it settled; it never rejects.
   */
  afterSpawn?: () => Promise<void>;
  /**
   * The writable folders to watch for new workspace files while the process runs (Linux, where
   * the sandbox cannot keep them from being created): one appearing stops it (launch-instance.ts).
   */
  workspaceWatch?: WorkspaceWatchSpec;
  /**
   * The workspace files found and kept read-only in the writable folders, for the launch's audit
   * row: what a server's "Read-only file system" comes from.
   */
  workspaceKept?: string[];
  /**
   * Folders of the writable roots that take no new entry (Landlock, on the way to a path kept
   * read-only or hidden), for the launch's audit row: what a server's "Permission denied" there
   * comes from.
   */
  closedFolders?: string[];
}

export interface SandboxBackend {
  readonly name: string;
  /**
   * The backend that will really run launches, where this one chooses among several (Linux:
   * bubblewrap, else Landlock). Absent: this backend itself.
   */
  resolve?(): Promise<SandboxBackend>;
  probe(): Promise<DoctorReport>;
  /**
   * Checks one filesystem root the way a launch would (it exists, names its own real path, and
   * is one this backend may share), so that the policy editor can say so before any launch.
   * Answers the resolved path, or the error the launch would refuse with.
   */
  checkRoot(path: string): Promise<Result<string, LaunchError>>;
  compile(
    policy: Policy,
    launch: LaunchSpec,
    ctx: CompileContext,
  ): Promise<Result<LaunchPlan, LaunchError>>;
}

/**
 * Whether the backend that will run launches has no network namespace of its own, so that egress
 * runs in Warden on a host loopback port (Seatbelt, Landlock) rather than as an in-sandbox init.
 */
export async function usesHostPortEgress(backend: SandboxBackend): Promise<boolean> {
  const real = backend.resolve ? await backend.resolve() : backend;
  return real.name === 'seatbelt' || real.name === 'landlock';
}
