/**
 * Resource limits on macOS. Only limits that setrlimit enforces soundly there are applied:
 * open files (RLIMIT_NOFILE) and CPU seconds (RLIMIT_CPU), set as both soft and hard limits by
 * a `/bin/sh` wrapper before sandbox-exec runs, so neither the server nor its children can raise
 * them. macOS does not enforce RLIMIT_AS or RLIMIT_DATA, and RLIMIT_NPROC counts every process of
 * the user, not of the sandbox: those limits are reported as not enforceable, never dropped.
 */
import type { DoctorReport } from '../../../app/contract/doctor';
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import type { Limits } from '../../../app/policy/policy-schema';
import { type LimitName, limitNames } from '../../../app/policy/limit-names';

const ulimitFlag: Partial<Record<LimitName, string>> = { openFiles: '-n', cpuSeconds: '-t' };

/** How each limit is (or is not) enforced on macOS, for the doctor report. */
export const macosLimitSupport: DoctorReport['limits'] = {
  openFiles: { enforced: true, how: 'setrlimit RLIMIT_NOFILE (soft and hard) before sandbox-exec' },
  cpuSeconds: { enforced: true, how: 'setrlimit RLIMIT_CPU (soft and hard) before sandbox-exec' },
  wallSeconds: { enforced: true, how: 'wall-clock timer in the supervisor' },
  memoryMb: { enforced: false, how: 'macOS does not enforce RLIMIT_AS or RLIMIT_DATA' },
  pids: {
    enforced: false,
    how: 'RLIMIT_NPROC on macOS counts every process of the user, not of the sandbox',
  },
};

export interface LimitPlan {
  /** argv to put before the sandboxed command (empty when no setrlimit is needed). */
  prefix: string[];
  enforced: Record<string, string>;
  /** Declared limits accepted as best-effort that are not enforced. */
  notEnforced: LimitName[];
}

/** Plans the limits; a declared limit that cannot be enforced fails unless marked best-effort. */
export function planLimits(
  limits: Limits,
): { ok: true; value: LimitPlan } | { ok: false; error: LaunchError } {
  const flags: string[] = [];
  const values: string[] = [];
  const enforced: Record<string, string> = {};
  const notEnforced: LimitName[] = [];
  for (const name of limitNames) {
    const value = limits[name];
    if (value === undefined) continue;
    const support = macosLimitSupport[name];
    if (!support?.enforced) {
      if (limits.bestEffort.includes(name)) {
        notEnforced.push(name);
        continue;
      }
      return {
        ok: false,
        error: launchError(
          'limit-unsupported',
          `the ${name} limit cannot be enforced on macOS: ${support?.how ?? 'no mechanism'}`,
          `remove the ${name} limit, or mark it best-effort to launch without it`,
        ),
      };
    }
    enforced[name] = support.how;
    const flag = ulimitFlag[name];
    if (flag) {
      flags.push(flag);
      values.push(String(value));
    }
  }
  if (flags.length === 0) return { ok: true, value: { prefix: [], enforced, notEnforced } };
  // Values travel as positional parameters, never inside the script text.
  const script = [
    ...flags.map((flag, i) => `ulimit ${flag} "$${i + 1}"`),
    `shift ${flags.length}`,
    'exec "$@"',
  ].join(' && ');
  return {
    ok: true,
    value: {
      prefix: ['/bin/sh', '-c', script, 'mcp-warden-limits', ...values],
      enforced,
      notEnforced,
    },
  };
}
