/**
 * The macOS sandbox backend: `/usr/bin/sandbox-exec` with a generated deny-default Seatbelt
 * profile. `compile` resolves and checks every path, builds the profile (paths as `-D`
 * parameters only), the environment and the setrlimit wrapper, and returns the argv to spawn;
 * anything it cannot enforce comes back as a typed LaunchError error.
 */
import { constants } from 'node:fs';
import { access, mkdir, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, normalize } from 'node:path';
import type { DoctorReport } from '../../../app/contract/doctor';
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../../app/policy/policy-schema';
import { protectedWorkspaceNames } from '../../../app/policy/workspace-files';
import { type Result, err, ok } from '../../../app/result';
import type { CompileContext, LaunchPlan, SandboxBackend } from '../backend';
import { findPolicyPaths, keptFields } from '../policy-paths';
import { repointableRefusal, symlinkOnTheWay } from '../repointable-links';
import type { HiddenPathsCache } from '../hidden-paths-cache';
import { buildLaunchEnv } from '../launch-env';
import { macosLimitSupport, planLimits } from './posix-limits';
import { buildSeatbeltProfile, type SeatbeltRoot } from './seatbelt-profile';
import { protectedHomePaths, protectedSystemPaths, systemReadSubpaths } from './seatbelt-rules';
import { unsandboxedPlan } from '../unsandboxed';
import { seatbeltLogTag } from './violation-log';

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** The egress broker's loopback port for this instance (macOS has no fd-3 channel). */
/** Kept for the tests that name it: the egress port is part of every CompileContext now. */
export type SeatbeltCompileContext = CompileContext;

export interface SeatbeltOptions {
  /** The user's home, whose credentials are never exposed; defaults to os.homedir(). */
  userHome?: string;
  /** More paths never exposed, e.g. Warden's own state directory. */
  protectedPaths?: readonly string[];
  /** Records of earlier hidden-path searches, shared by every launch of this backend. */
  hiddenCache?: HiddenPathsCache;
  /** For tests: whether sandbox-exec can run here (default: darwin and the binary is there). */
  available?: () => Promise<boolean>;
}

const unavailableRemedy =
  'run Warden on macOS, where /usr/bin/sandbox-exec is part of the system, or turn isolation off knowingly';

/** The Seatbelt backend; its compile also takes the egress broker's loopback port. */
export interface SeatbeltBackend extends SandboxBackend {
  compile(
    policy: Policy,
    launch: LaunchSpec,
    ctx: SeatbeltCompileContext,
  ): Promise<Result<LaunchPlan, LaunchError>>;
}

/** The Seatbelt backend. */
export function seatbeltBackend(options: SeatbeltOptions = {}): SeatbeltBackend {
  const available = options.available ?? defaultAvailable;
  return {
    name: 'seatbelt',
    probe: async () => report(await available()),
    checkRoot: async (path) =>
      resolveRoot(path, [...protectedSystemPaths, ...(await protectedPathsOf(options))]),
    compile: async (policy, launch, ctx) => {
      if (policy.isolation === 'off') return unsandboxedWithLimits(policy, launch, ctx);
      if (!(await available())) {
        return err(
          launchError(
            'unsupported-platform',
            `${SANDBOX_EXEC} is not available on this host (${process.platform})`,
            unavailableRemedy,
          ),
        );
      }
      try {
        return await compileSeatbelt(policy, launch, ctx, options);
      } catch (error) {
        return err(
          launchError(
            'instance-dir-unusable',
            `could not prepare the Seatbelt sandbox: ${(error as Error).message}`,
            'check that the instance directory is writable, then retry',
          ),
        );
      }
    },
  };
}

async function compileSeatbelt(
  policy: Policy,
  launch: LaunchSpec,
  ctx: SeatbeltCompileContext,
  options: SeatbeltOptions,
): Promise<Result<LaunchPlan, LaunchError>> {
  if (ctx.wrapper) {
    // The fd-3 init listens inside a private network namespace; macOS has none, so a server here
    // reaches the broker on a loopback port instead (ctx.egressPort).
    return err(
      launchError(
        'internal',
        'the macOS sandbox cannot run the in-sandbox egress init; it needs the broker’s loopback port',
        'report this as a bug: the egress broker must be set up with a loopback port on macOS',
      ),
    );
  }
  const limits = planLimits(policy.limits);
  if (!limits.ok) return limits;
  const protectedPaths = await protectedPathsOf(options);
  const roots: SeatbeltRoot[] = [];
  for (const root of policy.filesystem.roots) {
    const resolved = await resolveRoot(root.path, [...protectedSystemPaths, ...protectedPaths]);
    if (!resolved.ok) return resolved;
    roots.push({ path: resolved.value, access: root.access });
  }
  const writable = roots.filter((r) => r.access === 'write').map((r) => r.path);
  for (const declared of declaredProtectedPaths(options)) {
    const link = symlinkOnTheWay(declared, writable);
    if (link) return err(repointableRefusal(`the protected path ${declared}`, link));
  }
  const found = await findPolicyPaths(roots, policy, ctx, options.hiddenCache);
  if (!found.ok) return found;
  const privateDir = await realpath(ctx.instanceDir);
  if (underAny(privateDir, protectedPaths)) {
    return err(
      launchError(
        'instance-dir-unusable',
        `the instance directory ${privateDir} lies inside a location never exposed to servers`,
        'keep instance directories outside Warden’s state directory and the user’s credentials',
      ),
    );
  }
  await mkdir(join(privateDir, 'home'), { recursive: true, mode: 0o700 });
  await mkdir(join(privateDir, 'tmp'), { recursive: true, mode: 0o700 });

  let egressPort: number | undefined;
  if (policy.network.mode !== 'none') {
    egressPort = ctx.egressPort;
    if (egressPort === undefined) {
      return err(
        launchError(
          'internal',
          'this server may use the network, but no egress broker port was given to the sandbox',
          'restart the instance; if it persists, report it as a bug',
        ),
      );
    }
  }
  const env = buildLaunchEnv({
    family: 'posix',
    hostEnv: ctx.hostEnv,
    policy: policy.env,
    secrets: ctx.secrets,
    overrides: { HOME: join(privateDir, 'home'), TMPDIR: join(privateDir, 'tmp') },
    ...(egressPort === undefined ? {} : { egressPort }),
  });
  if (!env.ok) return env;
  const program = await findProgram(launch.command, env.value.PATH ?? '');
  const profile = buildSeatbeltProfile({
    tag: seatbeltLogTag(privateDir),
    roots,
    privateDir,
    ...(program && !underAny(program, systemReadSubpaths) ? { program } : {}),
    ...(egressPort === undefined ? {} : { egressPort }),
    ...(egressPort !== undefined && ctx.readableFiles ? { readableFiles: ctx.readableFiles } : {}),
    protectedPaths,
    hiddenPaths: found.value.hidden,
    // Workspace files are kept by name, whether they exist or not; of those found, the profile
    // keeps by path only what no name reaches (a git folder a `.git` file names elsewhere).
    workspaceNames: protectedWorkspaceNames(policy.guards?.unprotect),
    workspacePaths: found.value.workspace.map((t) => t.path),
  });
  const sandboxArgv = [
    SANDBOX_EXEC,
    '-p',
    profile.text,
    ...profile.params.flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    '--',
    launch.command,
    ...launch.args,
  ];
  const argv = [...limits.value.prefix, ...sandboxArgv] as [string, ...string[]];
  return ok({
    argv,
    env: env.value,
    fdData: [],
    backend: 'seatbelt',
    enforcedLimits: limits.value.enforced,
    ...keptFields(found.value),
  });
}

/** Isolation off: the bare program, still under the setrlimit limits macOS can enforce. */
function unsandboxedWithLimits(
  policy: Policy,
  launch: LaunchSpec,
  ctx: CompileContext,
): Promise<Result<LaunchPlan, LaunchError>> {
  const limits = planLimits(policy.limits);
  if (!limits.ok) return Promise.resolve(limits);
  const plan = unsandboxedPlan(policy, launch, ctx, 'posix');
  if (!plan.ok) return Promise.resolve(plan);
  const argv = [...limits.value.prefix, ...plan.value.argv] as [string, ...string[]];
  return Promise.resolve(ok({ ...plan.value, argv, enforcedLimits: limits.value.enforced }));
}

/** The user's credentials and Warden's own state, as declared. */
function declaredProtectedPaths(options: SeatbeltOptions): string[] {
  const userHome = options.userHome ?? homedir();
  return [...protectedHomePaths.map((p) => join(userHome, p)), ...(options.protectedPaths ?? [])];
}

/** The user's credentials and Warden's own state, resolved: never exposed to a server. */
async function protectedPathsOf(options: SeatbeltOptions): Promise<string[]> {
  return Promise.all(declaredProtectedPaths(options).map(resolveLoosely));
}

/** A root must exist, resolve to itself, and stay clear of the protected locations. */
async function resolveRoot(
  path: string,
  protectedPaths: readonly string[],
): Promise<Result<string, LaunchError>> {
  const invalid = (message: string, remedy: string) =>
    err(launchError('root-invalid', message, remedy));
  if (!isAbsolute(path) || path.includes('\0')) {
    return invalid(
      `root ${JSON.stringify(path)} is not an absolute path`,
      'declare an absolute path',
    );
  }
  const declared = normalize(path).replace(/(.)\/+$/, '$1');
  let resolved: string;
  try {
    resolved = await realpath(declared);
  } catch {
    return invalid(`root ${JSON.stringify(path)} does not exist`, 'create it, or remove the root');
  }
  if (resolved !== declared) {
    return invalid(
      `root ${JSON.stringify(path)} resolves to ${JSON.stringify(resolved)}`,
      `declare the resolved path ${JSON.stringify(resolved)} instead`,
    );
  }
  const hit = protectedPaths.find((p) => resolved === p || resolved.startsWith(`${p}/`));
  if (hit) {
    return invalid(
      `root ${JSON.stringify(path)} lies inside ${JSON.stringify(hit)}, which is never exposed to a server`,
      'choose a root outside credentials and Warden’s own state',
    );
  }
  return ok(resolved);
}

/** The resolved executable for `command`, searched on the server's PATH for a bare name. */
async function findProgram(command: string, path: string): Promise<string | undefined> {
  const candidates = command.includes('/')
    ? [command]
    : path
        .split(delimiter)
        .filter((d) => isAbsolute(d))
        .map((d) => join(d, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return await realpath(candidate);
    } catch {
      // not here; try the next directory
    }
  }
  return undefined;
}

/** realpath when the path exists, else the normalized path (a protected path may not exist). */
async function resolveLoosely(path: string): Promise<string> {
  return realpath(path).catch(() => normalize(path));
}

function underAny(path: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => path === d || path.startsWith(`${d}/`));
}

async function defaultAvailable(): Promise<boolean> {
  if (process.platform !== 'darwin') return false;
  return access(SANDBOX_EXEC, constants.X_OK).then(
    () => true,
    () => false,
  );
}

function report(available: boolean): DoctorReport {
  return {
    platform: process.platform,
    arch: process.arch,
    backend: { name: 'seatbelt', available },
    checks: [
      available
        ? { id: 'backend', label: 'Sandbox backend', status: 'ok', detail: `${SANDBOX_EXEC} found` }
        : {
            id: 'backend',
            label: 'Sandbox backend',
            status: 'missing',
            detail: `${SANDBOX_EXEC} is not available on this host`,
            remedy: unavailableRemedy,
          },
    ],
    limits: available ? structuredClone(macosLimitSupport) : noLimits(),
  };
}

function noLimits(): DoctorReport['limits'] {
  const none = { enforced: false, how: `${SANDBOX_EXEC} is not available` };
  return { memoryMb: none, pids: none, cpuSeconds: none, openFiles: none, wallSeconds: none };
}
