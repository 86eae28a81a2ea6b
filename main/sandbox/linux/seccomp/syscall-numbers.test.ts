import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { syscallNames, syscallTables, type SeccompArch } from './syscall-numbers';

const headers: Record<SeccompArch, string[]> = {
  x64: ['/usr/include/x86_64-linux-gnu/asm/unistd_64.h', '/usr/include/asm/unistd_64.h'],
  arm64: ['/usr/include/asm-generic/unistd.h'],
};
// Syscalls newer than some distributions' kernel headers; checked where the header has them.
const newerThanOldHeaders = new Set(['open_tree_attr']);

function headerNumbers(path: string): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const m of readFileSync(path, 'utf8').matchAll(
    /^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$/gm,
  )) {
    numbers.set(m[1] as string, Number(m[2]));
  }
  return numbers;
}

describe.each(['x64', 'arm64'] as const)('syscall numbers (%s)', (arch) => {
  const header = headers[arch].find((p) => existsSync(p));
  it.skipIf(header === undefined)(
    `match the kernel headers (skipped where ${headers[arch][0]} is not installed)`,
    () => {
      const numbers = headerNumbers(header as string);
      let compared = 0;
      for (const name of syscallNames) {
        const ours = syscallTables[arch][name];
        const theirs = numbers.get(name);
        if (theirs === undefined && ours !== undefined && newerThanOldHeaders.has(name)) continue;
        expect(ours, `${arch} ${name}`).toBe(theirs);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(syscallNames.length - newerThanOldHeaders.size);
    },
  );

  it('has distinct numbers', () => {
    const values = Object.values(syscallTables[arch]).filter((n) => n !== undefined);
    expect(new Set(values).size).toBe(values.length);
  });
});
