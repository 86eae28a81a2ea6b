/**
 * The bubblewrap command line as a pure function of what a policy resolved to on this host (the
 * view) and what the host is (its facts, probed elsewhere and cached). No file system access and
 * no probing happen here, so every argument is pinned by exact-argv tests; the backend gathers
 * the view (resolving roots, hidden and protected paths, limits) and hands it over.
 */
import type { LaunchSpec } from '../../../app/policy/policy-schema';
import {
  type FsLayout,
  type MaskTarget,
  type ReadOnlyBind,
  type ResolvedRoot,
  extraReadOnlyArgs,
  hiddenArgs,
  pinnedFolders,
  privateArgs,
  procArgs,
  protectedArgs,
  rootArgs,
  systemArgs,
} from './filesystem-view';
import type { LinuxHostFacts } from './host-facts';
import { type LimitPlan, cgroupPrefix, scopePrefix } from './limits';
import type { WorkspaceTarget } from '../workspace-files';
import { NAMESPACE_ARGS, bwrapHasDisableUserns } from './probe';

/** What the policy of one launch resolved to on this host. */
export interface BwrapView {
  launch: LaunchSpec;
  /** The home inside the sandbox (an empty tmpfs); the start directory unless `launch.cwd`. */
  home: string;
  roots: readonly ResolvedRoot[];
  /** Warden's own state found inside a root: masked. */
  protectedTargets: readonly MaskTarget[];
  /** The policy's hidden paths found inside a root: masked read-only. */
  hidden: readonly MaskTarget[];
  /** Workspace files found below a writable root: kept read-only. */
  workspace?: readonly WorkspaceTarget[];
  limits: Pick<LimitPlan, 'prlimitArgs' | 'cgroups' | 'scopeProperties' | 'tmpfsBytes'>;
  /** The egress init run before the server, with the host paths it needs read-only. */
  wrapper?: { argv: readonly string[] };
  extraReadOnly: readonly ReadOnlyBind[];
  /** Descriptors passed before the seccomp program (the egress channel on fd 3). */
  extraFds: number;
  /** Paths of the generated /etc files, each on its own fd after the seccomp program's. */
  etcPaths: readonly string[];
  /** Whether the host environment has XDG_RUNTIME_DIR (a systemd scope sets one otherwise). */
  hostRuntimeDir: boolean;
}

/** What the host is, as far as the command line depends on it. */
export interface BwrapHost {
  bwrapPath: string;
  facts: Pick<LinuxHostFacts, 'bwrap' | 'prlimitPath' | 'systemdScope'>;
  layout: FsLayout;
}

/** The whole argv: scope and cgroup prefixes, bwrap and its options, then the command inside. */
export function bwrapArgs(view: BwrapView, host: BwrapHost): [string, ...string[]] {
  const { facts } = host;
  const scope = scopePrefix(facts.systemdScope, view.limits.scopeProperties);
  const firstFd = 3 + view.extraFds;
  const fdArgs = ['--seccomp', String(firstFd)];
  view.etcPaths.forEach((path, i) => fdArgs.push('--ro-bind-data', String(firstFd + 1 + i), path));

  const inner: string[] = [];
  if (view.limits.prlimitArgs.length > 0 && facts.prlimitPath) {
    inner.push(facts.prlimitPath, ...view.limits.prlimitArgs, '--');
  }
  if (view.wrapper) inner.push(...view.wrapper.argv, '--');
  inner.push(view.launch.command, ...view.launch.args);

  // A workspace file is bound like a read-only root of its own, after the declared ones; what
  // holds it is pinned, so that it cannot be moved aside (into node_modules, say) for a copy.
  const kept = (view.workspace ?? []).map((t) => ({ ...t, byPath: true as const }));
  const bound: ResolvedRoot[] = [
    ...view.roots,
    ...(view.workspace ?? []).map((t) => ({ path: t.path, access: 'read' as const })),
  ];
  const disableUserns = facts.bwrap.ok && bwrapHasDisableUserns(facts.bwrap.version);
  return [
    ...(scope as []),
    ...(cgroupPrefix(view.limits.cgroups) as []),
    host.bwrapPath,
    ...NAMESPACE_ARGS,
    ...(disableUserns ? ['--disable-userns'] : []),
    ...fdArgs,
    // The scope's runtime folder reached systemd-run, not the policy: the sandbox loses it.
    ...(scope.length > 0 && !view.hostRuntimeDir ? ['--unsetenv', 'XDG_RUNTIME_DIR'] : []),
    ...systemArgs(host.layout),
    ...procArgs(host.layout),
    ...privateArgs(view.home, view.limits.tmpfsBytes),
    ...extraReadOnlyArgs(view.extraReadOnly),
    ...rootArgs(bound, pinnedFolders(bound, [...view.protectedTargets, ...view.hidden, ...kept])),
    ...protectedArgs(view.protectedTargets),
    ...hiddenArgs(view.hidden),
    // The root tmpfs bubblewrap builds stays read-only: writes go to /tmp or the home only.
    '--remount-ro',
    '/',
    '--chdir',
    view.launch.cwd ?? view.home,
    '--',
    ...inner,
  ];
}
