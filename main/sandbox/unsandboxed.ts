/**
 * `isolation: off`: the server runs as a plain child process with the user's whole identity.
 * This is the only path that spawns without a sandbox, and only a policy that says `off` takes it.
 */
import { tmpdir } from 'node:os';
import type { DoctorReport } from '../../app/contract/doctor';
import { isolationUnavailable } from '../../app/policy/isolation-error';
import { err, ok } from '../../app/result';
import type { SandboxBackend } from './backend';
import { buildServerEnv } from './launch-env';

const notEnforced = { enforced: false, how: 'isolation is off: nothing is enforced' };

/** The plain-process backend. Its compile refuses any policy that asks for a sandbox. */
export function unsandboxedBackend(): SandboxBackend {
  return {
    name: 'none',
    probe: (): Promise<DoctorReport> =>
      Promise.resolve({
        platform: process.platform,
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
    compile: (policy, launch, ctx) => {
      if (policy.isolation !== 'off') {
        return Promise.resolve(
          err(
            isolationUnavailable(
              'backend-failed',
              'a sandboxed server reached the plain-process launcher',
              'report this as a bug; the launch was refused',
            ),
          ),
        );
      }
      const env = buildServerEnv(policy, ctx.hostEnv, ctx.secrets, {
        home: ctx.hostEnv.HOME ?? tmpdir(),
        tmpdir: ctx.hostEnv.TMPDIR ?? tmpdir(),
      });
      return Promise.resolve(
        ok({
          argv: [launch.command, ...launch.args],
          env,
          fdData: [],
          backend: 'none',
          enforcedLimits: {},
        }),
      );
    },
  };
}
