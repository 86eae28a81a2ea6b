/**
 * Compiles `seccompRules` into the classic-BPF program bubblewrap installs with `--seccomp FD`.
 *
 * Layout: check the architecture (a foreign one, e.g. the i386 `int 0x80` entry on x86-64, is
 * killed: its syscall numbers mean other things), refuse the x32 ABI on x86-64 (EPERM), then a
 * binary search over ranges of syscall numbers that share an answer: allow, an errno, or a small
 * block that loads an argument and decides. Every number of the table is classified (allowlist,
 * argument rule or refusal); any other number is refused with ENOSYS. All jumps go forward, which
 * the assembler checks. The kernel caches the answer of each syscall whose result does not depend
 * on its arguments, so the search costs nothing for the common allowed calls.
 */
import { BpfAssembler } from './bpf-assembler';
import { allowedSyscallNames } from './seccomp-allowlist';
import {
  errnoValues,
  seccompRulesFor,
  type SeccompErrno,
  type SeccompOptions,
  type SeccompRule,
} from './seccomp-rules';
import { syscallNames, syscallNumber, type SeccompArch, type SyscallName } from './syscall-numbers';

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

/** What the filter answers for one syscall number. */
export type SyscallAction =
  { kind: 'return'; value: number } | { kind: 'condition'; rule: SeccompRule; name: SyscallName };

/**
 * Classifies every number of the architecture's table: the first rule naming a syscall wins,
 * then the allowlist; a syscall of the table in neither is refused with EPERM. Numbers absent
 * from the map (above or between the table's) get the default, `unknownSyscallAction`.
 */
export function classifySyscalls(
  arch: SeccompArch,
  options: SeccompOptions = {},
): Map<number, SyscallAction> {
  const actions = new Map<number, SyscallAction>();
  for (const rule of seccompRulesFor(options)) {
    for (const name of rule.syscalls) {
      const nr = syscallNumber(arch, name);
      if (nr === undefined || actions.has(nr)) continue;
      actions.set(
        nr,
        rule.when.kind === 'always'
          ? { kind: 'return', value: errnoAction(rule.errno) }
          : { kind: 'condition', rule, name },
      );
    }
  }
  const allowed = new Set<SyscallName>(allowedSyscallNames);
  for (const name of syscallNames) {
    const nr = syscallNumber(arch, name);
    if (nr === undefined || actions.has(nr)) continue;
    const value = allowed.has(name) ? seccompRet.allow : errnoAction('EPERM');
    actions.set(nr, { kind: 'return', value });
  }
  return actions;
}

/** A number the syscall table does not know (e.g. a newer kernel's) gets ENOSYS. */
export const unknownSyscallAction = errnoAction('ENOSYS');

interface Segment {
  start: number;
  action: SyscallAction;
}

/** Consecutive numbers with the same answer become one segment; the last runs to 2^32 - 1. */
function segmentsOf(actions: Map<number, SyscallAction>): Segment[] {
  const unknown: SyscallAction = { kind: 'return', value: unknownSyscallAction };
  const top = Math.max(...actions.keys()) + 1;
  const segments: Segment[] = [];
  for (let nr = 0; nr <= top; nr++) {
    const action = actions.get(nr) ?? unknown;
    const last = segments[segments.length - 1];
    const same =
      last !== undefined &&
      last.action.kind === 'return' &&
      action.kind === 'return' &&
      last.action.value === action.value;
    if (!same) segments.push({ start: nr, action });
  }
  return segments;
}

/** The program before encoding, for tests and for inspection. */
export function assembleProgram(arch: SeccompArch, options: SeccompOptions = {}): BpfAssembler {
  const asm = new BpfAssembler();
  asm.loadWord(seccompData.arch).jumpIfEqual(auditArch[arch], 'arch-ok');
  asm.ret(seccompRet.killProcess);
  asm.label('arch-ok').loadWord(seccompData.nr);
  if (arch === 'x64') {
    asm.jumpIfAnyBit(x32SyscallBit, 'next', 'native').ret(errnoAction('EPERM'));
    asm.label('native');
  }
  emitSearch(asm, segmentsOf(classifySyscalls(arch, options)), 'n');
  return asm;
}

/**
 * A binary search over the segments on A (the syscall number). Each node tests `nr >= start` of
 * the middle segment and takes a long `ja` to the upper half, so no conditional jump is longer
 * than one instruction; each leaf returns its answer or runs its argument condition.
 */
function emitSearch(asm: BpfAssembler, segments: readonly Segment[], path: string): void {
  if (segments.length === 1) {
    const { action } = segments[0] as Segment;
    if (action.kind === 'return') asm.ret(action.value);
    else emitConditionBlock(asm, `${path}-${action.name}`, action.rule);
    return;
  }
  const mid = segments.length >> 1;
  const upper = `${path}1`;
  asm.jumpIfAtLeast((segments[mid] as Segment).start, 'next', `${path}-lower`);
  asm.jumpTo(upper);
  asm.label(`${path}-lower`);
  emitSearch(asm, segments.slice(0, mid), `${path}0`);
  asm.label(upper);
  emitSearch(asm, segments.slice(mid), upper);
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
    case 'args-are-none-of':
      when.args.forEach(({ arg, values }, i) => {
        const ok = `${label}-ok${i}`;
        asm.loadWord(seccompData.argLow(arg));
        for (const value of values) asm.jumpIfEqual(value, ok);
        asm.ret(refuse);
        asm.label(ok);
      });
      asm.ret(seccompRet.allow);
      return;
  }
}
