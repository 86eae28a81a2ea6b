/**
 * File descriptors this process holds without close-on-exec, which every child would inherit.
 * Node opens its own descriptors close-on-exec, so these came from whoever started Warden (a
 * terminal, a session manager, a test harness) and may be sockets to host services. The spawner
 * overwrites each of them in the child with /dev/null (a stdio entry per fd), so nothing of them
 * reaches the sandbox — without running a shell on the host first.
 */
import { readFileSync, readdirSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above 2 that a spawned child would inherit (Linux; empty elsewhere). Read
 * synchronously: /proc answers from memory, and one read per descriptor through the thread pool
 * cost a launch several milliseconds in a core holding a few dozen descriptors.
 */
export function inheritableFds(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info = '';
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      // Closed since the listing: nothing to inherit.
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Extends a child's stdio array so that each leaked fd (at or above its length) is replaced by
 * `devNull` in the child; fds in between stay unopened.
 */
export function maskLeakedFds<T>(
  stdio: Array<T | number | 'ignore'>,
  leaked: readonly number[],
  devNull: number,
) {
  const out = [...stdio];
  for (const fd of leaked) {
    if (fd < out.length) continue;
    while (out.length < fd) out.push('ignore');
    out.push(devNull);
  }
  return out;
}
