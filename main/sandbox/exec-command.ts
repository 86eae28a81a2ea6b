/**
 * `warden exec [policy flags] -- COMMAND ARGS…`: runs any command under a policy, stdio passed
 * through, and exits with the command's status. A launch the sandbox refuses exits with
 * EXIT_REFUSED and says why and what to do; nothing ever runs unsandboxed unless `--isolation off`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { workspaceStopText } from './workspace-aside';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { constants } from 'node:os';
import { defaultPolicy } from '../../app/policy/defaults';
import type { LaunchError } from '../../app/contract/launch-error';
import type { Policy } from '../../app/policy/policy-schema';
import { launchPolicy, loadGlobalGuards, loadGuardLayers } from '../config/guard-layers';
import { inheritedHiddenPaths } from '../../app/policy/guards';
import { settleUnhides } from '../cli/unhide-check';
import { resolveWardenHome } from '../config/warden-home';
import { type CliIo, EXIT_USAGE, UsageError, reportUsage, splitAtDashDash } from '../cli/cli-io';
import { parsePolicyFlags } from '../cli/policy-flags';
import { EXEC_POLICY_FLAGS_HELP } from '../cli/flag-specs';
import { EGRESS_FLAGS_HELP, checkNetworkFlags, parseEgressFlags } from '../egress/egress-flags';
import type { ResolveOverride } from '../egress/resolve-destination';
import { ok } from '../../app/result';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type LaunchPlan, type SandboxBackend, usesHostPortEgress } from './backend';
import { execNetwork } from './exec-network';
import { launchInstance } from './launch-instance';
import { selectBackend } from './select-backend';
import type { PlanExit } from './spawn-plan';

/** The launch was refused (a typed LaunchError), or bwrap could not be started. */
export const EXIT_REFUSED = 125;
/** The wall-time limit ended the command (as coreutils `timeout` does). */
export const EXIT_WALL_TIME = 124;

export const EXEC_HELP = `Usage: warden exec [policy flags] -- COMMAND [ARGS...]

Runs COMMAND under a policy (sandboxed by default: no files, no network), with stdin, stdout and
stderr passed through. Exits with COMMAND's status (128+N if killed by signal N), ${EXIT_WALL_TIME} when the
wall-time limit ends it, ${EXIT_REFUSED} when the launch is refused or the command is stopped for creating a
workspace file (.git, .vscode, … in a writable folder; the reason and remedy are printed),
${EXIT_USAGE} for bad flags.

${EXEC_POLICY_FLAGS_HELP}

${EGRESS_FLAGS_HELP}
`;

export interface ExecDeps {
  /** The sandbox backend (default: this platform's). */
  backend?: SandboxBackend;
  /** 'inherit' (the CLI) or 'capture': output goes to io (tests), stdin is empty. */
  stdio?: 'inherit' | 'capture';
  hostEnv?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** Inside a declared root, the command starts in the current directory; else in its home. */
function startDir(policy: Policy, cwd: string): string | undefined {
  if (policy.isolation === 'off') return cwd;
  const inside = policy.filesystem.roots.some(
    (r) => cwd === r.path || cwd.startsWith(r.path + sep),
  );
  return inside ? cwd : undefined;
}

/** Runs `warden exec ARGS`; returns the exit status. */
export async function runExecCommand(
  args: string[],
  io: CliIo,
  deps: ExecDeps = {},
): Promise<number> {
  const { flags, command } = splitAtDashDash(args);
  if (flags.includes('--help') || flags.includes('-h')) {
    io.stdout(EXEC_HELP);
    return 0;
  }
  let policy: Policy;
  let resolve: ResolveOverride[];
  try {
    const egressFlags = parseEgressFlags(flags);
    resolve = egressFlags.resolve;
    const parsed = parsePolicyFlags(egressFlags.rest, defaultPolicy(), deps.cwd ?? process.cwd());
    checkNetworkFlags(parsed.policy.network);
    if (parsed.rest.length > 0)
      throw new UsageError(`exec: unknown option "${parsed.rest[0]}" (see warden exec --help)`);
    if (!command || command.length === 0)
      throw new UsageError('exec: expected -- COMMAND [ARGS...]');
    policy = parsed.policy;
  } catch (e) {
    if (e instanceof UsageError) return reportUsage(io, e);
    throw e;
  }
  const [file, ...rest] = command as [string, ...string[]];
  // The inherited guards and the managed layer apply to exec as to every server.
  const hostEnv = deps.hostEnv ?? process.env;
  const global = await loadGlobalGuards(resolveWardenHome(hostEnv));
  if (!global.ok)
    return refused(io, {
      kind: 'policy-forbidden',
      message: global.error.message,
      remedy: global.error.remedy,
    });
  // An --unhide of a path nothing hides is refused (a managed layer that cannot be read refuses
  // the launch below, with its reason).
  const layers = policy.guards?.unhide.length
    ? await loadGuardLayers({ global: global.value, env: hostEnv })
    : undefined;
  if (layers?.ok) {
    const inherited = inheritedHiddenPaths(layers.value.global, layers.value.managed);
    try {
      policy = settleUnhides(
        defaultPolicy(),
        policy,
        inherited.map((h) => h.path),
      );
    } catch (e) {
      if (e instanceof UsageError) return reportUsage(io, e);
      throw e;
    }
  }
  const guarded = await launchPolicy(policy, { global: global.value, env: hostEnv });
  if (!guarded.ok) return refused(io, guarded.error);
  policy = guarded.value;
  const backend =
    deps.backend ?? selectBackend(process.platform, { wardenHome: resolveWardenHome(hostEnv) });
  const instanceDir = await mkdtemp(join(tmpdir(), 'warden-exec-'));
  try {
    const cwd = startDir(policy, deps.cwd ?? process.cwd());
    const capture = deps.stdio === 'capture';
    const launched = await launchInstance({
      policy,
      launch: { command: file, args: rest, ...(cwd === undefined ? {} : { cwd }) },
      backend,
      instanceDir,
      hostEnv,
      secrets: {},
      egress: async () => {
        // Seatbelt and Landlock have no network namespace: the proxy runs on a host port.
        const net = await execNetwork(
          policy,
          io.stderr,
          resolve,
          await usesHostPortEgress(backend),
        );
        if (!net.ok) return net;
        const run = net.value;
        return ok(run && { ...run.egress, close: () => run.stop() });
      },
      beforeSpawn: (plan) => warnings(io, policy, plan),
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['inherit', 'inherit', 'inherit'],
    });
    if (!launched.ok) return refused(io, launched.error);
    const running = launched.value;
    if (capture) {
      running.child.stdout?.on('data', (d: Buffer) => io.stdout(d.toString()));
      running.child.stderr?.on('data', (d: Buffer) => io.stderr(d.toString()));
    }
    const forward = () => void running.stop();
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    if (!capture) for (const s of signals) process.on(s, forward);
    const exit = await running.exited;
    if (!capture) for (const s of signals) process.off(s, forward);
    return exitStatus(io, exit, policy);
  } finally {
    await rm(instanceDir, { recursive: true, force: true });
  }
}

/** Says on stderr what the plan leaves out: isolation off, limits not enforced, paths kept. */
function warnings(io: CliIo, policy: Policy, plan: LaunchPlan): void {
  if (policy.isolation === 'off')
    io.stderr('warden: warning: isolation is off; the command runs unsandboxed\n');
  const memory = plan.enforcedLimits.memoryMb;
  if (memory?.includes('will not start')) io.stderr(`warden: warning: memory limit: ${memory}\n`);
  for (const [name, why] of Object.entries(plan.unenforcedLimits ?? {})) {
    // A default nobody declared is a note; a declared best-effort limit left out, a warning.
    io.stderr(
      why.startsWith('default ')
        ? `warden: note: ${name}: ${why}\n`
        : `warden: warning: best-effort limit ${name} is not enforced: ${why}\n`,
    );
  }
  // Names a server may have chosen: shown escaped.
  const list = (paths: readonly string[]) => paths.map((p) => showUntrusted(p)).join(', ');
  if (plan.workspaceKept)
    io.stderr(`warden: note: kept read-only (workspace files): ${list(plan.workspaceKept)}\n`);
  if (plan.closedFolders) {
    io.stderr(
      `warden: note: no new entries in ${list(plan.closedFolders)} (Landlock: each holds a path ` +
        `kept read-only or hidden)\n`,
    );
  }
}

function refused(io: CliIo, e: LaunchError): number {
  io.stderr(
    `warden: launch refused (${e.kind}): ${showUntrusted(e.message)}\nwarden: remedy: ${showUntrusted(e.remedy)}\n`,
  );
  return EXIT_REFUSED;
}

/** The exit status of `warden exec` for how the command ended. */
function exitStatus(io: CliIo, exit: PlanExit, policy: Policy): number {
  if (exit.reason === 'spawn-failed') {
    io.stderr(
      `warden: could not start the command: ${showUntrusted(exit.error ?? 'unknown error')}\n`,
    );
    return EXIT_REFUSED;
  }
  if (exit.reason === 'workspace-file') {
    io.stderr(`warden: the command was ${showUntrusted(workspaceStopText(exit))}\n`);
    return EXIT_REFUSED;
  }
  if (exit.reason === 'wall-time') {
    io.stderr(
      `warden: wall-time limit of ${policy.limits.wallSeconds}s reached; the sandbox was killed\n`,
    );
    return EXIT_WALL_TIME;
  }
  if (exit.code !== null) return exit.code;
  return 128 + (exit.signal ? (constants.signals[exit.signal] ?? 0) : 0);
}
