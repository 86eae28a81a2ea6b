/**
 * The filter is default-deny: every syscall of the table is classified exactly once (allowed,
 * allowed with an argument condition, or refused), and the program refuses what the table does
 * not know. A syscall added to the table without a decision fails here.
 */
import { describe, expect, it } from 'vitest';
import { decodeSockFilters } from './bpf-assembler';
import { runSeccompProgram } from './bpf-interpreter';
import { allowedSyscallNames } from './seccomp-allowlist';
import { auditArch, buildSeccompProgram, errnoAction, seccompRet } from './seccomp-program';
import { seccompRulesFor } from './seccomp-rules';
import { syscallNames, syscallNumber, type SyscallName } from './syscall-numbers';

const rules = seccompRulesFor({ allowUnixSocketpair: true });

describe('seccomp policy', () => {
  it('classifies every syscall of the table exactly once', () => {
    const seen = new Map<SyscallName, string[]>();
    const note = (name: SyscallName, where: string) =>
      seen.set(name, [...(seen.get(name) ?? []), where]);
    for (const name of allowedSyscallNames) note(name, 'allowlist');
    for (const rule of rules) for (const name of rule.syscalls) note(name, rule.summary);
    const unclassified = syscallNames.filter((name) => !seen.has(name));
    expect(unclassified).toEqual([]);
    const twice = [...seen].filter(([, where]) => where.length > 1);
    expect(twice).toEqual([]);
    expect([...seen.keys()].every((name) => syscallNames.includes(name))).toBe(true);
  });

  it('moves memfd_create and shmget out of the allowlist only when memory is limited per process', () => {
    const strict = seccompRulesFor({ allowUnixSocketpair: true, refuseUncountedMemory: true });
    const refused = strict.filter((r) => r.when.kind === 'always').flatMap((r) => r.syscalls);
    expect(refused).toEqual(expect.arrayContaining(['memfd_create', 'shmget', 'msgget']));
    expect(allowedSyscallNames).toContain('memfd_create');
  });

  describe.each(['x64', 'arm64'] as const)('on %s', (arch) => {
    const program = decodeSockFilters(buildSeccompProgram(arch, { allowUnixSocketpair: true }));
    const run = (nr: number) => runSeccompProgram(program, { nr, arch: auditArch[arch] });

    it('refuses the calls Docker or Flatpak refuse and the newest calls', () => {
      const refused: SyscallName[] = [
        ...['modify_ldt', 'kcmp', 'move_pages', 'migrate_pages', 'mbind', 'set_mempolicy'],
        ...['memfd_secret', 'process_madvise', 'statmount', 'listmount', 'file_getattr'],
      ] as SyscallName[];
      for (const name of refused) {
        const nr = syscallNumber(arch, name);
        if (nr === undefined) continue; // modify_ldt is x86-only
        expect([errnoAction('EPERM'), errnoAction('ENOSYS')], name).toContain(run(nr));
      }
      expect(run(468)).toBe(errnoAction('ENOSYS'));
      for (const nr of [470, 471, 500, 1000, 0x3fffffff])
        expect(run(nr)).toBe(errnoAction('ENOSYS'));
    });

    it('refuses memfd_create and shmget with ENOSYS when asked to, and allows them otherwise', () => {
      const strict = decodeSockFilters(
        buildSeccompProgram(arch, { allowUnixSocketpair: true, refuseUncountedMemory: true }),
      );
      for (const name of ['memfd_create', 'shmget', 'msgget'] as const) {
        const nr = syscallNumber(arch, name) as number;
        expect(run(nr)).toBe(seccompRet.allow);
        expect(runSeccompProgram(strict, { nr, arch: auditArch[arch] })).toBe(
          errnoAction('ENOSYS'),
        );
      }
    });
  });
});
