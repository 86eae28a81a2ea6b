/**
 * File descriptors this process holds without close-on-exec, which every child would inherit.
 * Node opens its own descriptors close-on-exec, so these came from whoever started Warden (a
 * terminal, a session manager, a test harness) and may be sockets to host services: the child
 * closes them before anything else runs. Node cannot exec, and dash cannot name fds above 9, so
 * bash does the closing; without bash the spawn fails rather than leaking them.
 */
import { readFile, readdir } from 'node:fs/promises';

const O_CLOEXEC = 0o2000000;

/** Descriptors above 2 that a spawned child would inherit (Linux; empty elsewhere). */
export async function inheritableFds(): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

/** Variables bash adds to the environment of what it execs. */
const BASH_ADDS = ['PWD', 'OLDPWD', 'SHLVL', '_'];

/**
 * A prefix for argv that closes `fds` and then execs the rest (empty when there is nothing),
 * removing the variables bash itself would add unless `env` (the plan's) has them.
 */
export function closeFdsPrefix(
  fds: readonly number[],
  env: Readonly<Record<string, string>>,
): string[] {
  if (fds.length === 0) return [];
  const unset = BASH_ADDS.filter((name) => !(name in env)).flatMap((name) => ['-u', name]);
  const script = `exec ${fds.map((fd) => `${fd}>&-`).join(' ')}; exec /usr/bin/env ${unset.join(' ')} "$@"`;
  return ['/bin/bash', '-c', script, 'warden-close-fds'];
}
