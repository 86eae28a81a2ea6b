/**
 * Compiles `seccompRules` into the classic-BPF program bubblewrap installs with `--seccomp FD`.
 *
 * Layout: check the architecture (a foreign one, e.g. the i386 `int 0x80` entry on x86-64, is
 * killed: its syscall numbers mean other things), refuse the x32 ABI on x86-64 (EPERM), then one
 * `nr == N` test per filtered syscall. Unconditional refusals jump to a shared return; syscalls
 * with an argument condition jump to a small block that loads the argument and returns. Any other
 * syscall falls through to ALLOW. All jumps are forward and short, which the assembler checks.
 */
import { BpfAssembler } from './bpf-assembler';
import {
  errnoValues,
  seccompRulesFor,
  type SeccompErrno,
  type SeccompOptions,
  type SeccompRule,
} from './seccomp-rules';
import { syscallNumber, type SeccompArch, type SyscallName } from './syscall-numbers';

/** SECCOMP_RET_* actions (linux/seccomp.h). */
export const seccompRet = {
  killProcess: 0x80000000,
  errno: 0x00050000,
  allow: 0x7fff0000,
} as const;

/** The `AUDIT_ARCH_*` value the kernel puts in `seccomp_data.arch`. */
export const auditArch: Readonly<Record<SeccompArch, number>> = {
  x64: 0xc000003e,
  arm64: 0xc00000b7,
};

/** Syscall numbers of the x32 ABI carry this bit (__X32_SYSCALL_BIT). */
export const x32SyscallBit = 0x40000000;

/** Offsets in `struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}` (little-endian). */
export const seccompData = {
  nr: 0,
  arch: 4,
  argLow: (i: number): number => 16 + 8 * i,
  argHigh: (i: number): number => 20 + 8 * i,
  size: 64,
} as const;

/** The action returning `errno` to the caller. */
export function errnoAction(errno: SeccompErrno): number {
  return seccompRet.errno | errnoValues[errno];
}

/** Maps Node's `process.arch` to the filter's architecture; undefined means unsupported. */
export function seccompArchFor(nodeArch: string): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x64';
  if (nodeArch === 'arm64') return 'arm64';
  return undefined;
}

/**
 * The whole seccomp program for `arch`, as the raw `struct sock_filter[]` bytes that bwrap reads
 * from its `--seccomp` fd. Throws only on a programming error in the rules (a jump too long).
 */
export function buildSeccompProgram(arch: SeccompArch, options: SeccompOptions = {}): Buffer {
  return assembleProgram(arch, options).assemble();
}

/** The program before encoding, for tests and for inspection. */
export function assembleProgram(arch: SeccompArch, options: SeccompOptions = {}): BpfAssembler {
  const asm = new BpfAssembler();
  asm.loadWord(seccompData.arch).jumpIfEqual(auditArch[arch], 'arch-ok', 'kill');
  asm.label('arch-ok').loadWord(seccompData.nr);
  if (arch === 'x64') asm.jumpIfAnyBit(x32SyscallBit, 'x32');

  const blocks: { label: string; rule: SeccompRule }[] = [];
  const returns = new Set<SeccompErrno>();
  for (const [n, rule] of seccompRulesFor(options).entries()) {
    for (const name of presentSyscalls(arch, rule.syscalls)) {
      const nr = syscallNumber(arch, name) as number;
      if (rule.when.kind === 'always') {
        returns.add(rule.errno);
        asm.jumpIfEqual(nr, `ret-${rule.errno}`);
      } else {
        const label = `rule-${n}-${name}`;
        blocks.push({ label, rule });
        asm.jumpIfEqual(nr, label);
      }
    }
  }
  asm.ret(seccompRet.allow);

  for (const { label, rule } of blocks) emitConditionBlock(asm.label(label), label, rule);
  for (const errno of returns) asm.label(`ret-${errno}`).ret(errnoAction(errno));
  asm.label('kill').ret(seccompRet.killProcess);
  if (arch === 'x64') asm.label('x32').ret(errnoAction('EPERM'));
  return asm;
}

/** Loads the argument's low word and returns ALLOW or the rule's errno. */
function emitConditionBlock(asm: BpfAssembler, label: string, rule: SeccompRule): void {
  const refuse = errnoAction(rule.errno);
  const { when } = rule;
  const [hit, miss] = [`${label}-hit`, `${label}-miss`];
  switch (when.kind) {
    case 'always':
      asm.ret(refuse);
      return;
    case 'arg-has-any-bit':
      asm.loadWord(seccompData.argLow(when.arg)).jumpIfAnyBit(when.mask, hit, miss);
      asm.label(hit).ret(refuse);
      asm.label(miss).ret(seccompRet.allow);
      return;
    case 'arg-is-one-of':
    case 'arg-is-none-of': {
      asm.loadWord(seccompData.argLow(when.arg));
      for (const value of when.values) asm.jumpIfEqual(value, hit);
      const listed = when.kind === 'arg-is-one-of' ? refuse : seccompRet.allow;
      const unlisted = when.kind === 'arg-is-one-of' ? seccompRet.allow : refuse;
      asm.label(miss).ret(unlisted);
      asm.label(hit).ret(listed);
      return;
    }
  }
}

function presentSyscalls(arch: SeccompArch, names: readonly SyscallName[]): SyscallName[] {
  return names.filter((name) => syscallNumber(arch, name) !== undefined);
}
