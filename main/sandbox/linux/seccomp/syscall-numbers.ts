/** Syscall names and numbers per architecture, read from the table in `syscall-table.ts`. */
import { syscallTable as table } from './syscall-table';

/** Architectures that have a filter. */
export type SeccompArch = 'x64' | 'arm64';

export type SyscallName = keyof typeof table;

/** Every syscall of the table, in x86-64 order (arm64-only names last). */
export const syscallNames = Object.keys(table) as SyscallName[];

function archTable(index: 0 | 1): Readonly<Partial<Record<SyscallName, number>>> {
  const out: Partial<Record<SyscallName, number>> = {};
  for (const name of syscallNames) {
    const nr = table[name][index];
    if (nr !== null) out[name] = nr;
  }
  return out;
}

export const syscallTables: Readonly<
  Record<SeccompArch, Readonly<Partial<Record<SyscallName, number>>>>
> = { x64: archTable(0), arm64: archTable(1) };

/** The number of `name` on `arch`, or undefined where the architecture has no such syscall. */
export function syscallNumber(arch: SeccompArch, name: SyscallName): number | undefined {
  return syscallTables[arch][name];
}
