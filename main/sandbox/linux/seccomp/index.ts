/**
 * The Linux sandbox's seccomp filter: a classic-BPF program, built per architecture, that
 * bubblewrap installs with `--seccomp FD` before it executes the sandboxed program.
 */
export { buildSeccompProgram, seccompArchFor, seccompRet, auditArch } from './seccomp-program';
export { seccompRules, seccompRulesFor, seccompArchRules, errnoValues } from './seccomp-rules';
export type { SeccompRule, SeccompCondition, SeccompErrno, SeccompOptions } from './seccomp-rules';
export type { SeccompArch, SyscallName } from './syscall-numbers';
