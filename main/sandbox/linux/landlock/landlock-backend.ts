/**
 * The Linux backend for hosts where bubblewrap cannot create its namespaces (Ubuntu's AppArmor
 * rule on user namespaces, most containers): Landlock and the same seccomp filter, applied by a
 * small launcher (landlock-exec) that then runs the server. No namespaces: the filesystem is the
 * host's, limited by Landlock to the system folders (read/execute), the declared roots and a
 * private folder for HOME and TMPDIR; TCP only to the instance's egress port on the host loopback
 * (with the per-instance proxy credentials of host-port egress); abstract Unix sockets and signals
 * scoped to the sandbox. What it lacks next to bubblewrap is listed in landlock-gaps.ts. Anything
 * it cannot enforce is a typed error: it never falls back to a bare launch.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { DoctorReport } from '../../../../app/contract/doctor';
import { type LaunchError, launchError } from '../../../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../../../app/policy/policy-schema';
import { type Result, err, ok } from '../../../../app/result';
import type { CompileContext, LaunchPlan, SandboxBackend } from '../../backend';
import { buildLaunchEnv } from '../../launch-env';
import { checkCommandVisible } from '../command-visibility';
import { writeRecordsAfterSpawn } from '../../hidden-paths';
import { findPolicyPaths, keptFields } from '../../policy-paths';
import type { HiddenPathsCache } from '../../hidden-paths-cache';
import { findProtectedTargets, resolveRoots } from '../filesystem-view';
import type { LinuxHostFacts } from '../host-facts';
import { cgroupPrefix, planLimitFields, planLimits, scopePrefix } from '../limits';
import { seccompProgramFor } from '../seccomp-fd';
import { landlockDoctorReport } from './landlock-doctor';
import { LANDLOCK_ABI, type LandlockFacts } from './landlock-probe';
import { rootGrants } from './landlock-grants';
import { pathArgs } from './landlock-view';

const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface LandlockBackendOptions {
  /** The launcher and kernel ABI (probed by the caller, or simulated by tests). */
  landlock: () => Promise<LandlockFacts>;
  /** Host facts for limits (cgroups, systemd scope, prlimit). */
  host: () => Promise<LinuxHostFacts>;
  /** Host paths never shown to a sandbox (Warden's own state). */
  protectedPaths?: readonly string[];
  /** Records of earlier hidden-path searches, shared by every launch of this backend. */
  hiddenCache?: HiddenPathsCache;
}

const refuse = (kind: Parameters<typeof launchError>[0], message: string, remedy: string) =>
  err(launchError(kind, message, remedy));

/** Creates the Landlock backend. */
export function landlockBackend(options: LandlockBackendOptions): SandboxBackend {
  return {
    name: 'landlock',
    async probe(): Promise<DoctorReport> {
      return landlockDoctorReport(await options.landlock(), await options.host());
    },
    async checkRoot(path: string) {
      const roots = await resolveRoots([{ path, access: 'read' }]);
      if (!roots.ok) return roots;
      // Warden's state inside it is kept out of reach at launch; a root inside the state is not.
      const inside = await findProtectedTargets(roots.value, options.protectedPaths ?? []);
      if (!inside.ok) return inside;
      return ok(roots.value[0]!.path);
    },
    compile: (policy, launch, ctx) => compileLandlock(policy, launch, ctx, options),
  };
}

/**
 * The Landlock ABI a policy needs here: signals and abstract Unix sockets scoped to the sandbox
 * (ABI 6) always; TCP port rules (ABI 4) when it may use the network. Without network, Internet
 * sockets are refused by the filter whatever the ABI.
 */
export function requiredAbi(policy: Policy): { abi: number; why: string } {
  return policy.network.mode === 'none'
    ? { abi: LANDLOCK_ABI.scoping, why: 'scoping signals and abstract Unix sockets to the sandbox' }
    : {
        abi: Math.max(LANDLOCK_ABI.network, LANDLOCK_ABI.scoping),
        why: 'limiting TCP to the egress port and scoping signals and abstract Unix sockets',
      };
}

async function compileLandlock(
  policy: Policy,
  launch: LaunchSpec,
  ctx: CompileContext,
  options: LandlockBackendOptions,
): Promise<Result<LaunchPlan, LaunchError>> {
  if (policy.isolation !== 'sandbox') {
    return refuse(
      'internal',
      'a policy with isolation off reached the sandbox backend',
      'report this as a bug; the launch was refused',
    );
  }
  const landlock = await options.landlock();
  if (!landlock.ok) return refuse('landlock-unavailable', landlock.detail, landlock.remedy);
  const needed = requiredAbi(policy);
  if (landlock.abi < needed.abi) {
    return refuse(
      'landlock-unavailable',
      `this kernel's Landlock ABI is ${landlock.abi}; ${needed.why} needs ABI ${needed.abi}`,
      'upgrade the kernel (Linux 6.12 or later has ABI 6), or make bubblewrap usable',
    );
  }
  if (ctx.wrapper) {
    return refuse(
      'internal',
      'the Landlock sandbox has no network namespace for the in-sandbox egress init; it needs the broker’s loopback port',
      'report this as a bug: egress must be set up on a host loopback port for this backend',
    );
  }
  const network = policy.network.mode !== 'none';
  if (network && ctx.egressPort === undefined) {
    return refuse(
      'internal',
      'this server may use the network, but no egress broker port was given to the sandbox',
      'restart the instance; if it persists, report it as a bug',
    );
  }
  const roots = await resolveRoots(policy.filesystem.roots);
  if (!roots.ok) return roots;
  // Warden's own state inside a root: out of reach, as a hidden path is.
  const state = await findProtectedTargets(roots.value, options.protectedPaths ?? []);
  if (!state.ok) return state;
  const found = await findPolicyPaths(roots.value, policy, ctx, options.hiddenCache);
  if (!found.ok) return found;
  // A hidden path gets no access, and a workspace file in a folder the server may write stays
  // read-only: the folders on the way to them are granted entry by entry (landlock-grants.ts).
  const grants = rootGrants(roots.value, {
    kept: found.value.workspace,
    // A folder the search could not list is among them: out of reach whole, as bubblewrap masks it.
    hidden: [...found.value.hidden, ...state.value].map((h) => h.path),
  });
  if (!grants.ok) return grants;

  const privateDir = await realpath(ctx.instanceDir);
  if (roots.value.some((r) => privateDir === r.path || privateDir.startsWith(`${r.path}/`))) {
    return refuse(
      'root-invalid',
      `the instance folder ${privateDir} lies inside a declared root`,
      'keep instance folders outside the folders shared with servers',
    );
  }
  const home = join(privateDir, 'home');
  const tmp = join(privateDir, 'tmp');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(tmp, { recursive: true, mode: 0o700 });

  const cwd = launch.cwd ?? home;
  const visible = await checkCommandVisible(launch.command, {
    cwd,
    sandboxPath: SANDBOX_PATH,
    hostPath: ctx.hostEnv.PATH,
    visible: [...roots.value.map((r) => r.path), home, tmp],
  });
  if (!visible.ok) return visible;

  const host = await options.host();
  const tag = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const limits = planLimits(policy.limits, host, tag, 'landlock');
  if (!limits.ok) return limits;
  const seccomp = seccompProgramFor(process.arch, {
    refuseUncountedMemory: limits.value.refuseUncountedMemory,
  });
  if (!seccomp.ok) return seccomp;
  const scope = scopePrefix(host.systemdScope, limits.value.scopeProperties);

  const firstFd = 3 + (ctx.extraFds ?? 0);
  const inner: string[] = [];
  if (limits.value.prlimitArgs.length > 0 && host.prlimitPath) {
    inner.push(host.prlimitPath, ...limits.value.prlimitArgs, '--');
  }
  inner.push(launch.command, ...launch.args);
  const argv = [
    ...scope,
    ...cgroupPrefix(limits.value.cgroups),
    landlock.launcher,
    ...(await pathArgs({
      roots: grants.value.grants,
      privateDirs: [home, tmp],
      readable: ctx.readableFiles ?? [],
    })),
    ...(network ? ['--connect', String(ctx.egressPort)] : ['--no-inet']),
    '--scope',
    '--min-abi',
    String(needed.abi),
    ...(scope.length > 0 && ctx.hostEnv.XDG_RUNTIME_DIR === undefined
      ? ['--unsetenv', 'XDG_RUNTIME_DIR']
      : []),
    '--seccomp-fd',
    String(firstFd),
    '--chdir',
    cwd,
    '--',
    ...inner,
  ] as [string, ...string[]];

  const env = buildLaunchEnv({
    family: 'posix',
    hostEnv: ctx.hostEnv,
    policy: policy.env,
    secrets: ctx.secrets,
    defaults: limits.value.envDefaults,
    // git stops on an unreadable /etc/gitconfig (bubblewrap's view has none): it reads none here.
    overrides: { HOME: home, TMPDIR: tmp, PATH: SANDBOX_PATH, PWD: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    ...(network ? { egressPort: ctx.egressPort! } : {}),
  });
  if (!env.ok) return env;
  return ok({
    argv,
    env: env.value,
    fdData: [seccomp.value],
    backend: 'landlock',
    ...(found.value.watch && { workspaceWatch: found.value.watch }),
    ...keptFields(found.value),
    ...(grants.value.closed.length > 0 && { closedFolders: grants.value.closed }),
    ...planLimitFields(limits.value),
    ...writeRecordsAfterSpawn(options.hiddenCache),
  });
}
