/**
 * Resource limits for a Linux sandbox. Each limit is enforced by the soundest means the host
 * offers: a cgroup (whole sandbox) for memory and processes where this user may create one, else
 * a systemd user scope (`systemd-run --user --scope`, a delegated cgroup) where systemd gives one,
 * else an rlimit set by `prlimit` inside the sandbox, and a timer in the spawner for wall time.
 * RLIMIT_NPROC counts per user namespace on Linux >= 5.14, so it bounds this sandbox alone.
 * RLIMIT_AS bounds each process's address space, and what it cannot see is closed separately:
 * the sandbox's tmpfs mounts are sized so that together they hold at most the limit, and
 * memfd_create, shmget and msgget are refused by the seccomp filter. Under it glibc is told to keep
 * one malloc arena (MALLOC_ARENA_MAX=1): each further thread's arena reserves 64 MB of address
 * space it rarely uses, and under a 1 GB limit Node (727 MB at start) then failed to allocate
 * 64 MB about one launch in three. A declared limit none of these can enforce refuses the
 * launch, unless the policy accepts it as best-effort. The defaults of
 * `effectiveLimits` are best-effort, and memory by default is held only for the whole sandbox
 * (cgroup or scope): an address-space limit nobody asked for would break programs that reserve
 * address space (Node needs about 650 MB of it to start).
 */
import type { LimitSupport } from '../../../app/contract/doctor';
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import type { Limits } from '../../../app/policy/policy-schema';
import { type LimitName, limitNames } from '../../../app/policy/limit-names';
import { type Result, err, ok } from '../../../app/result';
import { effectiveLimits } from '../../../app/policy/defaults';
import type { CgroupParent, LinuxHostFacts } from './host-facts';
import { bwrapHasDisableUserns } from './probe';

/** A cgroup to create, set up and join before bubblewrap starts. */
export interface CgroupJoin {
  dir: string;
  /** [file, value, required]: an optional file (e.g. v1 memsw) may be missing on some kernels. */
  settings: Array<[string, string, boolean]>;
}

export interface LimitPlan {
  /** Arguments for `prlimit` run inside the sandbox (empty: no prlimit needed). */
  prlimitArgs: string[];
  cgroups: CgroupJoin[];
  /** `-p` properties of a systemd user scope to start the sandbox in (empty: no scope). */
  scopeProperties: string[];
  /** Size of the sandbox's tmpfs mounts together, when memory is limited. */
  tmpfsBytes?: number;
  /** The seccomp filter refuses memfd_create, shmget and msgget (memory is limited per process). */
  refuseUncountedMemory: boolean;
  /** Variables the server gets unless its policy passes or sets them (glibc's arena cap). */
  envDefaults: Record<string, string>;
  wallTimeMs?: number;
  enforced: Partial<Record<LimitName, string>>;
  /** Best-effort limits that this host cannot enforce, with the reason. */
  unenforced: Partial<Record<LimitName, string>>;
}

/**
 * Address space Node 20 reserves at start with one malloc arena (measured: fails at 646 MB,
 * starts at 648 MB; 720 MB with glibc's default arenas).
 */
export const NODE_AS_FLOOR_MB = 650;

type Means =
  | { kind: 'cgroup'; parent: CgroupParent; how: string }
  | { kind: 'scope'; how: string }
  | { kind: 'rlimit'; how: string }
  | { kind: 'timer'; how: string }
  | { kind: 'none'; why: string; remedy: string };

const cgroupRemedy =
  'give Warden a cgroup v2 subtree of its own with the pids and memory controllers enabled for ' +
  'its children (a systemd user session where `systemd-run --user --scope` works, or a user ' +
  'service with Delegate=yes), or mark the limit best-effort';

function bwrapHasTmpfsSize(facts: LinuxHostFacts): boolean {
  return facts.bwrap.ok && bwrapHasDisableUserns(facts.bwrap.version);
}

/** A systemd user scope, where this host gives one and no writable cgroup exists. */
function scopeUsable(facts: LinuxHostFacts): boolean {
  return facts.systemdScope.ok && !facts.cgroup.memory && !facts.cgroup.pids;
}

export const RLIMIT_MEMORY_LANDLOCK_HOW =
  'setrlimit RLIMIT_AS (per-process address space, not the sandbox total), memfd_create, shmget ' +
  'and msgget refused; files go to the private folder on disk (Node 20 needs about 650 MB of address space just to start)';

export const RLIMIT_MEMORY_HOW =
  'setrlimit RLIMIT_AS (per-process address space, not the sandbox total), tmpfs mounts sized ' +
  'to the limit together, memfd_create, shmget and msgget refused (Node 20 needs about 650 MB of address space just to start)';

/**
 * Which sandbox the limits are for: bubblewrap's (a user namespace, tmpfs folders) or Landlock's
 * (no namespace: RLIMIT_NPROC would count every process of the user; files go to disk, not tmpfs).
 */
export type LimitBackend = 'bwrap' | 'landlock';

function meansFor(name: LimitName, facts: LinuxHostFacts, backend: LimitBackend = 'bwrap'): Means {
  const { cgroup, prlimitPath, isRoot } = facts;
  const scope = scopeUsable(facts);
  const prlimitMissing = {
    kind: 'none' as const,
    why: 'prlimit (util-linux) is not installed',
    remedy: 'install util-linux (`sudo apt install util-linux`), or mark the limit best-effort',
  };
  switch (name) {
    case 'memoryMb':
      if (cgroup.memory) {
        return {
          kind: 'cgroup',
          parent: cgroup.memory,
          how: `cgroup v${cgroup.memory.version} memory limit for the whole sandbox`,
        };
      }
      if (scope)
        return { kind: 'scope', how: 'systemd user scope MemoryMax for the whole sandbox' };
      if (!prlimitPath) return prlimitMissing;
      if (backend === 'landlock') return { kind: 'rlimit', how: RLIMIT_MEMORY_LANDLOCK_HOW };
      if (!bwrapHasTmpfsSize(facts)) {
        return {
          kind: 'none',
          why: 'bubblewrap before 0.8.0 cannot size its tmpfs mounts, and files there are memory no rlimit counts',
          remedy: `upgrade bubblewrap to 0.8.0 or later, or ${cgroupRemedy}`,
        };
      }
      return { kind: 'rlimit', how: RLIMIT_MEMORY_HOW };
    case 'pids':
      if (cgroup.pids) {
        return {
          kind: 'cgroup',
          parent: cgroup.pids,
          how: `cgroup v${cgroup.pids.version} pids.max for the whole sandbox`,
        };
      }
      if (scope) return { kind: 'scope', how: 'systemd user scope TasksMax for the whole sandbox' };
      if (!prlimitPath) return prlimitMissing;
      if (backend === 'landlock') {
        return {
          kind: 'none',
          why: 'without a user namespace RLIMIT_NPROC counts every process of the user, not the sandbox’s, and no writable pids cgroup exists',
          remedy: cgroupRemedy,
        };
      }
      if (isRoot) {
        return {
          kind: 'none',
          why: 'RLIMIT_NPROC does not bind uid 0 and no writable pids cgroup exists',
          remedy: `run Warden as an unprivileged user, or ${cgroupRemedy}`,
        };
      }
      if (!facts.nprocPerUserns) {
        return {
          kind: 'none',
          why: `RLIMIT_NPROC counts per sandbox only on Linux >= 5.14 (this is ${facts.kernel})`,
          remedy: `upgrade the kernel, or ${cgroupRemedy}`,
        };
      }
      return {
        kind: 'rlimit',
        how: 'setrlimit RLIMIT_NPROC, counted per user namespace: processes of this sandbox',
      };
    case 'cpuSeconds':
      if (!prlimitPath) return prlimitMissing;
      return {
        kind: 'rlimit',
        how: 'setrlimit RLIMIT_CPU: CPU seconds per process (SIGXCPU, then SIGKILL)',
      };
    case 'openFiles':
      if (!prlimitPath) return prlimitMissing;
      return { kind: 'rlimit', how: 'setrlimit RLIMIT_NOFILE: open files per process' };
    case 'wallSeconds':
      return { kind: 'timer', how: 'timer in Warden that kills the whole sandbox' };
  }
}

/** What each limit would be enforced with on this host (for `warden doctor`). */
export function limitSupport(
  facts: LinuxHostFacts,
  backend: LimitBackend = 'bwrap',
): Record<LimitName, LimitSupport> {
  const out = {} as Record<LimitName, LimitSupport>;
  for (const name of limitNames) {
    const m = meansFor(name, facts, backend);
    out[name] =
      m.kind === 'none'
        ? { enforced: false, how: `${m.why}; ${m.remedy}` }
        : {
            enforced: true,
            how: m.how,
            ...(m.kind === 'rlimit' && name === 'memoryMb' ? { partial: true } : {}),
          };
  }
  return out;
}

function cgroupSettings(
  parent: CgroupParent,
  name: LimitName,
  value: number,
): CgroupJoin['settings'] {
  if (name === 'pids') return [['pids.max', String(value), true]];
  const bytes = String(value * 1024 * 1024);
  return parent.version === 2
    ? [
        ['memory.max', bytes, true],
        ['memory.swap.max', '0', false],
      ]
    : [
        ['memory.limit_in_bytes', bytes, true],
        ['memory.memsw.limit_in_bytes', bytes, false],
      ];
}

/**
 * Plans the policy's limits, with the defaults filled in, on this host, or refuses the launch
 * with `limit-unsupported` when a declared limit cannot be enforced and is not best-effort.
 */
export function planLimits(
  declared: Limits,
  facts: LinuxHostFacts,
  instanceTag: string,
  backend: LimitBackend = 'bwrap',
): Result<LimitPlan, LaunchError> {
  const { limits, defaulted } = effectiveLimits(declared);
  const plan: LimitPlan = {
    prlimitArgs: [],
    cgroups: [],
    scopeProperties: [],
    refuseUncountedMemory: false,
    envDefaults: {},
    enforced: {},
    unenforced: {},
  };
  for (const name of limitNames) {
    const value = limits[name];
    if (value === undefined) continue;
    const isDefault = defaulted.includes(name);
    let m = meansFor(name, facts, backend);
    if (isDefault && name === 'memoryMb' && m.kind === 'rlimit') {
      m = {
        kind: 'none',
        why: 'only per-process address-space limits exist here (no cgroup or systemd user scope)',
        remedy: cgroupRemedy,
      };
    }
    const label = isDefault ? `default ${value}` : undefined;
    if (m.kind === 'none') {
      if (limits.bestEffort.includes(name)) {
        plan.unenforced[name] = label ? `${label} not applied: ${m.why}` : m.why;
        continue;
      }
      return err(
        launchError(
          'limit-unsupported',
          `the ${name} limit cannot be enforced here: ${m.why}`,
          m.remedy,
        ),
      );
    }
    const how =
      m.kind === 'rlimit' && name === 'memoryMb' && value < NODE_AS_FLOOR_MB
        ? `${m.how}; ${value} MB is below that, so a Node program will not start`
        : m.how;
    plan.enforced[name] = label ? `${label}: ${how}` : how;
    if (name === 'memoryMb' && backend === 'bwrap' && bwrapHasTmpfsSize(facts))
      plan.tmpfsBytes = value * 1024 * 1024;
    if (m.kind === 'timer') plan.wallTimeMs = value * 1000;
    else if (m.kind === 'scope') plan.scopeProperties.push(...scopeProperties(name, value));
    else if (m.kind === 'cgroup') {
      const dir = `${m.parent.dir.replace(/\/$/, '')}/warden-${instanceTag}`;
      const existing = plan.cgroups.find((c) => c.dir === dir);
      const settings = cgroupSettings(m.parent, name, value);
      if (existing) existing.settings.push(...settings);
      else plan.cgroups.push({ dir, settings });
    } else if (name === 'memoryMb') {
      plan.prlimitArgs.push(`--as=${value * 1024 * 1024}`);
      plan.refuseUncountedMemory = true;
      plan.envDefaults.MALLOC_ARENA_MAX = '1';
    } else if (name === 'pids') plan.prlimitArgs.push(`--nproc=${value}`);
    else if (name === 'cpuSeconds') plan.prlimitArgs.push(`--cpu=${value}:${value + 1}`);
    else if (name === 'openFiles') plan.prlimitArgs.push(`--nofile=${value}`);
  }
  return ok(plan);
}

function scopeProperties(name: LimitName, value: number): string[] {
  if (name === 'pids') return [`TasksMax=${value}`];
  return [`MemoryMax=${value * 1024 * 1024}`, 'MemorySwapMax=0'];
}

/**
 * The prefix that starts the sandbox in a systemd user scope holding `properties`. systemd-run
 * finds the user's manager through XDG_RUNTIME_DIR, given by `env` here because the launch's own
 * environment is the sandbox's; bubblewrap unsets it again (`scopeUnsetArgs`).
 */
export function scopePrefix(
  scope: LinuxHostFacts['systemdScope'],
  properties: readonly string[],
): string[] {
  if (properties.length === 0 || !scope.ok) return [];
  return [
    '/usr/bin/env',
    `XDG_RUNTIME_DIR=${scope.runtimeDir}`,
    scope.systemdRun,
    '--user',
    '--scope',
    '--quiet',
    '--collect',
    ...properties.flatMap((p) => ['-p', p]),
    '--',
  ];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A `/bin/sh -c` prefix that writes the limits of the cgroups (created by the spawner, which
 * refuses the spawn when it cannot: the plan's `createDirs`) and moves itself into them before
 * exec'ing bubblewrap, so that nothing of the sandbox ever runs outside them. Only shell
 * built-ins run here: no process starts before bubblewrap.
 */
export function cgroupPrefix(cgroups: readonly CgroupJoin[]): string[] {
  if (cgroups.length === 0) return [];
  const steps: string[] = [];
  for (const c of cgroups) {
    for (const [file, value, required] of c.settings) {
      const write = `echo ${quote(value)} > ${quote(`${c.dir}/${file}`)}`;
      steps.push(required ? write : `{ [ ! -e ${quote(`${c.dir}/${file}`)} ] || ${write}; }`);
    }
    steps.push(`echo $$ > ${quote(`${c.dir}/cgroup.procs`)}`);
  }
  const script = `{ ${steps.join(' && ')}; } || { echo 'warden: could not set up the cgroup limits' >&2; exit 125; }; exec "$@"`;
  return ['/bin/sh', '-c', script, 'warden-cgroup'];
}

/** What a launch plan carries of `limits`: the limits as shown, the wall time, its cgroups. */
export function planLimitFields(limits: LimitPlan): {
  enforcedLimits: Partial<Record<LimitName, string>>;
  unenforcedLimits: Partial<Record<LimitName, string>>;
  wallTimeMs?: number;
  createDirs: string[];
  cleanupDirs: string[];
} {
  const dirs = limits.cgroups.map((c) => c.dir);
  return {
    enforcedLimits: limits.enforced,
    unenforcedLimits: limits.unenforced,
    ...(limits.wallTimeMs === undefined ? {} : { wallTimeMs: limits.wallTimeMs }),
    createDirs: dirs,
    cleanupDirs: [...dirs],
  };
}
