/**
 * `isolation: off`: the server runs as a plain child process with the user's whole identity and
 * the policy's environment, nothing enforced. This is the only path that spawns without a
 * sandbox, only a policy that says `off` takes it, and a sandboxed server never falls back to it.
 */
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { DoctorReport } from '../../app/contract/doctor';
import { launchError, type LaunchError } from '../../app/contract/launch-error';
import type { LaunchSpec, Policy } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';
import type { CompileContext, LaunchPlan, SandboxBackend } from './backend';
import { buildLaunchEnv } from './launch-env';

/** Builds the unsandboxed plan; refuses when called for a sandboxed policy. */
export function unsandboxedPlan(
  policy: Policy,
  launch: LaunchSpec,
  ctx: CompileContext,
  family: 'posix' | 'win32',
): Result<LaunchPlan, LaunchError> {
  if (policy.isolation !== 'off') {
    return err(
      launchError('internal', 'refusing to launch a sandboxed server without its sandbox'),
    );
  }
  const home = family === 'win32' ? {} : pick(ctx.hostEnv, 'HOME', 'TMPDIR');
  const env = buildLaunchEnv({
    family,
    hostEnv: ctx.hostEnv,
    policy: policy.env,
    secrets: ctx.secrets,
    overrides: home,
  });
  if (!env.ok) return env;
  return ok({
    argv: [launch.command, ...launch.args],
    env: env.value,
    fdData: [],
    backend: 'none',
    enforcedLimits: {},
  });
}

function pick(env: CompileContext['hostEnv'], ...names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Where nothing is bound (no sandbox), a root only has to exist to mean something. */
export async function checkExistingRoot(path: string): Promise<Result<string, LaunchError>> {
  try {
    return ok(await realpath(path));
  } catch {
    return err(
      launchError(
        'root-invalid',
        `root "${path}" does not exist`,
        `create ${path}, or remove it from the server's filesystem roots`,
      ),
    );
  }
}

const notEnforced = { enforced: false, how: 'isolation is off: nothing is enforced' };

/** The plain-process backend. Its compile refuses any policy that asks for a sandbox. */
export function unsandboxedBackend(platform: NodeJS.Platform = process.platform): SandboxBackend {
  const family = platform === 'win32' ? 'win32' : 'posix';
  return {
    name: 'none',
    checkRoot: checkExistingRoot,
    probe: (): Promise<DoctorReport> =>
      Promise.resolve({
        platform,
        arch: process.arch,
        backend: { name: 'none', available: true },
        checks: [],
        limits: {
          memoryMb: notEnforced,
          pids: notEnforced,
          cpuSeconds: notEnforced,
          openFiles: notEnforced,
          wallSeconds: notEnforced,
        },
      }),
    compile: (policy, launch, ctx) =>
      Promise.resolve(
        unsandboxedPlan(
          policy,
          launch,
          { ...ctx, hostEnv: { TMPDIR: tmpdir(), ...ctx.hostEnv } },
          family,
        ),
      ),
  };
}
