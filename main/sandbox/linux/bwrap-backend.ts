/**
 * The Linux backend: compiles a server's policy into a bubblewrap command line. New user, pid, net,
 * ipc, uts (and cgroup where possible) namespaces, no capabilities, no further user namespaces, the
 * seccomp filter, a deny-by-default filesystem view and the policy's limits. It never spawns the
 * server and never falls back to a bare launch: anything it cannot enforce is a typed error.
 */
import { randomBytes } from 'node:crypto';
import type { DoctorReport } from '../../../app/contract/doctor';
import { launchError } from '../../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../../app/policy/policy-schema';
import { err, ok } from '../../../app/result';
import type { CompileContext, SandboxBackend } from '../backend';
import { writeRecordsAfterSpawn } from '../hidden-paths';
import { findPolicyPaths, keptFields } from '../policy-paths';
import type { HiddenPathsCache } from '../hidden-paths-cache';
import { buildLaunchEnv } from '../launch-env';
import { bwrapArgs } from './bwrap-args';
import {
  findProtectedTargets,
  generatedEtc,
  probeFsLayout,
  resolveReadOnlyBinds,
  resolveRoots,
} from './filesystem-view';
import type { LinuxHostFacts } from './host-facts';
import { checkCommandVisible } from './command-visibility';
import { linuxDoctorReport } from './linux-doctor';
import { planLimitFields, planLimits } from './limits';
import { DEFAULT_BWRAP, probeLinuxHost } from './probe';
import { cachedHostFacts } from './probe-cache';
import { seccompProgramFor } from './seccomp-fd';

export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface BwrapBackendOptions {
  /** Where bubblewrap is (tests point this at a missing file to simulate its absence). */
  bwrapPath?: string;
  /** Host facts to use instead of probing (tests simulate blocked user namespaces with this). */
  facts?: LinuxHostFacts;
  /**
   * Where launches take the host facts from when `facts` is not given (default: a recent probe
   * of this host, or a fresh one): the Linux backend shares its own, so that one process reads
   * them, and creates its probe cgroups, once.
   */
  host?: () => Promise<LinuxHostFacts>;
  /** Host paths never shown to a sandbox even inside a declared root (Warden's own state). */
  protectedPaths?: readonly string[];
  /** Records of earlier hidden-path searches, shared by every launch of this backend. */
  hiddenCache?: HiddenPathsCache;
  /**
   * Builds the seccomp program (default: `seccompProgramFor`). Only tests replace it, to check
   * that `warden doctor --verify` catches a backend that lost its filter.
   */
  seccompProgram?: typeof seccompProgramFor;
}

/** The sandbox's home: the host's home path (as an empty tmpfs) when it is an ordinary place. */
function sandboxHome(hostHome: string | undefined): string {
  if (
    hostHome &&
    /^\/(home|root|Users|var\/home)(\/|$)/.test(hostHome) &&
    // Plain path characters only: the path also goes into the generated /etc/passwd.
    /^[\w.@+/-]+$/.test(hostHome) &&
    !hostHome.includes('..')
  ) {
    return hostHome.replace(/\/+$/, '');
  }
  return '/home/sandbox';
}

/** Creates the bubblewrap backend. Host facts are probed once and reused by every compile. */
export function bwrapBackend(options: BwrapBackendOptions = {}): SandboxBackend {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP;
  let facts: Promise<LinuxHostFacts> | undefined = options.facts
    ? Promise.resolve(options.facts)
    : undefined;
  // Launches may use a recent probe of this host; doctor (probe()) always tries afresh.
  const getFacts = () =>
    (facts ??= options.host ? options.host() : cachedHostFacts(bwrapPath, probeLinuxHost));

  return {
    name: 'bwrap',
    async probe(): Promise<DoctorReport> {
      if (!options.facts) facts = probeLinuxHost(bwrapPath);
      return linuxDoctorReport(await getFacts());
    },
    async checkRoot(path: string) {
      const roots = await resolveRoots([{ path, access: 'read' }]);
      if (!roots.ok) return roots;
      const protect = await findProtectedTargets(roots.value, options.protectedPaths ?? []);
      return protect.ok ? ok(roots.value[0]!.path) : protect;
    },
    async compile(policy: Policy, launch: LaunchSpec, ctx: CompileContext) {
      if (policy.isolation !== 'sandbox') {
        return err(
          launchError(
            'internal',
            'a policy with isolation off reached the sandbox backend',
            'report this as a bug; the launch was refused',
          ),
        );
      }
      const host = await getFacts();
      if (!host.bwrap.ok)
        return err(launchError('bwrap-missing', host.bwrap.detail, host.bwrap.remedy));
      if (!host.userns.ok) {
        return err(launchError('userns-blocked', host.userns.detail, host.userns.remedy));
      }
      if (!host.seccomp.ok) {
        return err(launchError('seccomp-unavailable', host.seccomp.detail, host.seccomp.remedy));
      }
      const roots = await resolveRoots(policy.filesystem.roots);
      if (!roots.ok) return roots;
      const protect = await findProtectedTargets(roots.value, options.protectedPaths ?? []);
      if (!protect.ok) return protect;
      const found = await findPolicyPaths(roots.value, policy, ctx, options.hiddenCache);
      if (!found.ok) return found;
      const home = sandboxHome(ctx.hostEnv.HOME);
      const binds = await resolveReadOnlyBinds(ctx.wrapper?.readOnlyBinds ?? []);
      const visible = await checkCommandVisible(launch.command, {
        cwd: launch.cwd ?? home,
        sandboxPath: SANDBOX_PATH,
        hostPath: ctx.hostEnv.PATH,
        visible: [...roots.value.map((r) => r.path), ...binds.map((b) => b.real)],
      });
      if (!visible.ok) return visible;
      const tag = `${process.pid}-${randomBytes(6).toString('hex')}`;
      const limits = planLimits(policy.limits, host, tag);
      if (!limits.ok) return limits;
      const seccomp = (options.seccompProgram ?? seccompProgramFor)(process.arch, {
        refuseUncountedMemory: limits.value.refuseUncountedMemory,
      });
      if (!seccomp.ok) return seccomp;
      const etc = generatedEtc(process.getuid?.() ?? 65534, process.getgid?.() ?? 65534, home);
      const argv = bwrapArgs(
        {
          launch,
          home,
          roots: roots.value,
          protectedTargets: protect.value,
          hidden: found.value.hidden,
          workspace: found.value.workspace,
          limits: limits.value,
          ...(ctx.wrapper ? { wrapper: ctx.wrapper } : {}),
          extraReadOnly: binds,
          extraFds: ctx.extraFds ?? 0,
          etcPaths: etc.map(([path]) => path),
          hostRuntimeDir: ctx.hostEnv.XDG_RUNTIME_DIR !== undefined,
        },
        { bwrapPath, facts: host, layout: probeFsLayout() },
      );
      // The environment reaches bwrap as its own, not as --setenv arguments, so that secret
      // values never appear in a command line other local users can read in /proc.
      const env = buildLaunchEnv({
        family: 'posix',
        hostEnv: ctx.hostEnv,
        policy: policy.env,
        secrets: ctx.secrets,
        defaults: limits.value.envDefaults,
        overrides: { HOME: home, TMPDIR: '/tmp', PATH: SANDBOX_PATH },
      });
      if (!env.ok) return env;
      return ok({
        argv,
        env: env.value,
        fdData: [seccomp.value, ...etc.map(([, text]) => Buffer.from(text))],
        backend: 'bwrap',
        ...(found.value.watch && { workspaceWatch: found.value.watch }),
        ...keptFields(found.value),
        ...planLimitFields(limits.value),
        ...writeRecordsAfterSpawn(options.hiddenCache),
      });
    },
  };
}
