/**
 * The seccomp program for this machine's architecture, as the raw `sock_filter` bytes bubblewrap
 * reads from `--seccomp FD`. An architecture without a filter fails closed.
 */
import { type LaunchError, launchError } from '../../../app/contract/launch-error';
import { type Result, err, ok } from '../../../app/result';
import { buildSeccompProgram, seccompArchFor } from './seccomp';

const cached = new Map<string, Buffer>();

/** Choices of the launch that change the filter. */
export interface SeccompChoices {
  /** Memory is limited per process: refuse memfd_create, shmget and msgget. */
  refuseUncountedMemory?: boolean;
}

/** Builds (once per process and choice) the filter for `nodeArch` (`process.arch`). */
export function seccompProgramFor(
  nodeArch: string,
  choices: SeccompChoices = {},
): Result<Buffer, LaunchError> {
  // chown may name the user and group this process runs as (the sandbox's, in or out of bwrap).
  const ownIds = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const key = `${nodeArch}:${choices.refuseUncountedMemory === true}:${ownIds.uid}:${ownIds.gid}`;
  const hit = cached.get(key);
  if (hit) return ok(hit);
  const arch = seccompArchFor(nodeArch);
  if (arch === undefined) {
    return err(
      launchError(
        'unsupported-arch',
        `no seccomp filter is defined for the ${nodeArch} architecture`,
        "run Warden on x64 or arm64, or turn this server's isolation off knowingly",
      ),
    );
  }
  // socketpair(AF_UNIX) stays allowed: it reaches nothing outside the sandbox, and Node's
  // child_process pipes and Python's asyncio need it. socket(AF_UNIX) is refused.
  const program = buildSeccompProgram(arch, {
    allowUnixSocketpair: true,
    refuseUncountedMemory: choices.refuseUncountedMemory === true,
    ownIds,
  });
  cached.set(key, program);
  return ok(program);
}
