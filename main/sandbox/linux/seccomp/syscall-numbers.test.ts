import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { syscallNames, syscallTables, type SeccompArch } from './syscall-numbers';

const headers: Record<SeccompArch, string[]> = {
  x64: ['/usr/include/x86_64-linux-gnu/asm/unistd_64.h', '/usr/include/asm/unistd_64.h'],
  arm64: ['/usr/include/asm-generic/unistd.h'],
};
// Syscalls newer than some distributions' kernel headers (6.1); checked where the header has them.
const newerThanOldHeaders = new Set([
  ...['uretprobe', 'cachestat', 'fchmodat2', 'map_shadow_stack', 'futex_wake', 'futex_wait'],
  ...['futex_requeue', 'statmount', 'listmount', 'lsm_get_self_attr', 'lsm_set_self_attr'],
  ...['lsm_list_modules', 'mseal', 'setxattrat', 'getxattrat', 'listxattrat', 'removexattrat'],
  ...['open_tree_attr', 'file_getattr', 'file_setattr'],
]);
// Generic names that arm64 spells differently, and generic numbers that 64-bit arm64 lacks.
const arm64Aliases: Record<string, string> = { fstatat: 'newfstatat' };
const notOn64Bit = (nr: number) => nr >= 403 && nr <= 423; // the 32-bit time64 calls

function headerNumbers(path: string, arch: SeccompArch): Map<string, number> {
  const numbers = new Map<string, number>();
  const text = readFileSync(path, 'utf8');
  for (const m of text.matchAll(/^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$/gm)) {
    const name = arch === 'arm64' ? (arm64Aliases[m[1] as string] ?? m[1]) : m[1];
    const nr = Number(m[2]);
    if (arch === 'arm64' && notOn64Bit(nr)) continue;
    if (name === 'syscalls' || name === 'arch_specific_syscall') continue;
    numbers.set(name as string, nr);
  }
  return numbers;
}

describe.each(['x64', 'arm64'] as const)('syscall numbers (%s)', (arch) => {
  const header = headers[arch].find((p) => existsSync(p));
  it.skipIf(header === undefined)(
    `match the kernel headers, and list every syscall they define (skipped where ${headers[arch][0]} is not installed)`,
    () => {
      const numbers = headerNumbers(header as string, arch);
      let compared = 0;
      for (const name of syscallNames) {
        const ours = syscallTables[arch][name];
        const theirs = numbers.get(name);
        if (theirs === undefined && ours !== undefined && newerThanOldHeaders.has(name)) continue;
        expect(ours, `${arch} ${name}`).toBe(theirs);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(syscallNames.length - newerThanOldHeaders.size);
      for (const [name, nr] of numbers) {
        // 32-bit-only generic calls (sync_file_range2, fcntl64, …) do not exist on arm64.
        if (arch === 'arm64' && !(name in syscallTables.x64) && !(name in syscallTables.arm64))
          continue;
        expect(syscallTables[arch][name as keyof (typeof syscallTables)['x64']], name).toBe(nr);
      }
    },
  );

  it('has distinct numbers', () => {
    const values = Object.values(syscallTables[arch]).filter((n) => n !== undefined);
    expect(new Set(values).size).toBe(values.length);
  });
});
