/**
 * The facts about a Linux host that decide what a sandbox can enforce. `probe.ts` gathers them;
 * the backend compiles against them; tests inject them to simulate a host that lacks something.
 */

/** Where bubblewrap is looked for unless WARDEN_BWRAP says otherwise. */
export const DEFAULT_BWRAP = '/usr/bin/bwrap';

/** A capability that is either present, or missing with the reason and the exact remedy. */
export type Capability =
  { ok: true; detail: string } | { ok: false; detail: string; remedy: string };

/** A cgroup directory the current user may create children in, with the files that set limits. */
export interface CgroupParent {
  /** e.g. /sys/fs/cgroup/pids or /sys/fs/cgroup/user.slice/…/app.slice (cgroup v2). */
  dir: string;
  version: 1 | 2;
}

export type SystemdScope =
  | { ok: true; detail: string; systemdRun: string; runtimeDir: string }
  | { ok: false; detail: string; remedy: string };

export interface LinuxHostFacts {
  kernel: string;
  /** Whether Warden itself runs as uid 0 (RLIMIT_NPROC does not bind root's user). */
  isRoot: boolean;
  bwrap:
    { ok: true; path: string; version: string } | { ok: false; detail: string; remedy: string };
  /** Unprivileged user namespaces as bwrap needs them (tried for real). */
  userns: Capability;
  /** A seccomp filter can be installed through bwrap (tried for real). */
  seccomp: Capability;
  /** /usr/bin/prlimit (util-linux), run inside the sandbox to set rlimits; null when missing. */
  prlimitPath: string | null;
  /** RLIMIT_NPROC is counted per user namespace (ucounts, Linux >= 5.14). */
  nprocPerUserns: boolean;
  /**
   * `systemd-run --user --scope` with MemoryMax and TasksMax works for this user (tried for real):
   * a cgroup systemd delegates, for a user who cannot write one directly.
   */
  systemdScope: SystemdScope;
  /** Writable cgroup parents for the pids and memory controllers, when the host offers them. */
  cgroup: { pids: CgroupParent | null; memory: CgroupParent | null; detail: string };
}

/** Whether the facts allow a sandboxed launch at all (ignoring limits). */
export function sandboxUsable(facts: LinuxHostFacts): boolean {
  return facts.bwrap.ok && facts.userns.ok && facts.seccomp.ok;
}
