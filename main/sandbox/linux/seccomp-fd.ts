/**
 * The seccomp program for this machine's architecture, as the raw `sock_filter` bytes bubblewrap
 * reads from `--seccomp FD`. An architecture without a filter fails closed.
 */
import {
  type IsolationUnavailable,
  isolationUnavailable,
} from '../../../app/policy/isolation-error';
import { type Result, err, ok } from '../../../app/result';
import { buildSeccompProgram, seccompArchFor } from './seccomp';

let cached: { arch: string; program: Buffer } | undefined;

/** Builds (once per process) the filter for `nodeArch` (`process.arch`). */
export function seccompProgramFor(nodeArch: string): Result<Buffer, IsolationUnavailable> {
  if (cached?.arch === nodeArch) return ok(cached.program);
  const arch = seccompArchFor(nodeArch);
  if (arch === undefined) {
    return err(
      isolationUnavailable(
        'unsupported-arch',
        `no seccomp filter is defined for the ${nodeArch} architecture`,
        "run Warden on x64 or arm64, or turn this server's isolation off knowingly",
      ),
    );
  }
  // socketpair(AF_UNIX) stays allowed: it reaches nothing outside the sandbox, and Node's
  // child_process pipes and Python's asyncio need it. socket(AF_UNIX) is refused.
  const program = buildSeccompProgram(arch, { allowUnixSocketpair: true });
  cached = { arch: nodeArch, program };
  return ok(program);
}
