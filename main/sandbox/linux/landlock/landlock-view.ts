/**
 * The Landlock sandbox's filesystem, as launcher arguments: the system folders bubblewrap binds
 * read-only (read and execute here), the same few /etc entries plus the host's passwd, group and
 * hosts (bubblewrap generates those), /proc read-only, a handful of /dev files, the declared
 * roots, the private folders for HOME and TMPDIR, and host files the server must read (the fetch
 * preload). Everything else, the rest of /tmp, /home, /run, /var and /sys included, is refused.
 */
import { lstat } from 'node:fs/promises';
import { ETC_ENTRIES, SYSTEM_DIRS } from '../filesystem-view';
import type { PathGrant } from './landlock-grants';

const HOST_ETC = ['/etc/passwd', '/etc/group', '/etc/hosts', '/etc/nsswitch.conf'];
/** Character devices every program may open for reading and writing. */
const DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty'];

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/**
 * The launcher's path arguments: `--rx`, `--ro`, `--dev` for the existing system paths; the
 * roots' grants (`--lsn`, `--rxn`, `--rwn`, landlock-grants.ts) and `--rwn` for the private
 * folders, which the launcher opens refusing any symlink.
 */
export async function pathArgs(input: {
  roots: readonly PathGrant[];
  privateDirs: readonly string[];
  readable: readonly string[];
}): Promise<string[]> {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) if (await exists(dir)) args.push('--rx', dir);
  for (const entry of [...ETC_ENTRIES, ...HOST_ETC])
    if (await exists(entry)) args.push('--ro', entry);
  args.push('--ro', '/proc');
  for (const dev of DEVICES) if (await exists(dev)) args.push('--dev', dev);
  for (const file of input.readable) args.push('--ro', file);
  for (const grant of input.roots) args.push(...grant);
  for (const dir of input.privateDirs) args.push('--rwn', dir);
  return args;
}
