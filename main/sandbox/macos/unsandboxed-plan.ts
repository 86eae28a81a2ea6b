/**
 * The launch plan for a server whose policy says `isolation: off`: its own program with the
 * policy's environment, and nothing enforced. Only reached when the user turned isolation off
 * knowingly; a sandboxed server never falls back to this.
 */
import {
  isolationUnavailable,
  type IsolationUnavailable,
} from '../../../app/policy/isolation-error';
import type { LaunchSpec, Policy } from '../../../app/policy/policy-schema';
import { type Result, err, ok } from '../../../app/result';
import type { CompileContext, LaunchPlan } from '../backend';
import { buildLaunchEnv } from './launch-env';

/** Builds the unsandboxed plan; refuses when called for a sandboxed policy. */
export function unsandboxedPlan(
  policy: Policy,
  launch: LaunchSpec,
  ctx: CompileContext,
  family: 'posix' | 'win32',
): Result<LaunchPlan, IsolationUnavailable> {
  if (policy.isolation !== 'off') {
    return err(
      isolationUnavailable(
        'backend-failed',
        'refusing to launch a sandboxed server without its sandbox',
        'report this as a bug',
      ),
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
  if (!env.ok) {
    return err(
      isolationUnavailable(
        'backend-failed',
        `the secret "${env.error.ref}" for ${env.error.name} could not be read`,
        'set the secret again in the server settings',
      ),
    );
  }
  return ok({
    argv: [launch.command, ...launch.args],
    env: env.env,
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
