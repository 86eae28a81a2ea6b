/**
 * The syscalls `kernel-probe.py` attempts inside a real sandbox, with what the filter must answer.
 * Arguments are chosen so that, where possible, the kernel itself would answer differently
 * without the filter (success, EFAULT, EINVAL, EBADF…): comparing with an unfiltered run then
 * proves that the refusal came from the filter and not from dropped capabilities.
 */
import { cloneNewNamespaceMask } from './seccomp-rules';
import { syscallNumber, type SeccompArch, type SyscallName } from './syscall-numbers';

export interface RawCheck {
  name: string;
  syscall: SyscallName;
  args: bigint[];
  /** errno the filtered run must give, or 'ALLOWED' for a call the filter lets through. */
  expect: string;
  /** The unfiltered kernel gives another answer, so the filter is seen to act. */
  discriminates: boolean;
  inChild?: boolean;
  closeFd?: boolean;
  /** Or a number OR-ed in, for syscalls given by number (x32). */
  nrBits?: number;
  /** A raw number instead of the syscall's (one the table does not know). */
  nr?: number;
}

const BAD = 1n; // a pointer the kernel cannot read: EFAULT when it gets that far
const M1 = 0xffffffffffffffffn; // -1 as u64
const HIGH = 0xffffffff00000000n;
const all = 0xffffffffn;

type Row = [string, SyscallName, bigint[], string, boolean, Partial<RawCheck>?];

const rows: Row[] = [
  ['socket-unix', 'socket', [1n, 1n, 0n], 'EAFNOSUPPORT', true, { closeFd: true }],
  ['socket-unix-high-word', 'socket', [HIGH | 1n, 1n, 0n], 'EAFNOSUPPORT', true, { closeFd: true }],
  ['socketpair-unix', 'socketpair', [1n, 1n, 0n, BAD], 'EAFNOSUPPORT', true],
  ['socket-netlink', 'socket', [16n, 3n, 0n], 'EAFNOSUPPORT', true, { closeFd: true }],
  ['socket-packet', 'socket', [17n, 3n, 0n], 'EAFNOSUPPORT', true, { closeFd: true }],
  ['socket-vsock', 'socket', [40n, 1n, 0n], 'EAFNOSUPPORT', false, { closeFd: true }],
  ['socket-inet', 'socket', [2n, 1n, 0n], 'ALLOWED', false, { closeFd: true }],
  ['socket-inet6-high-word', 'socket', [HIGH | 10n, 2n, 0n], 'ALLOWED', false, { closeFd: true }],
  ['io_uring_setup', 'io_uring_setup', [1n, BAD], 'EPERM', true],
  ['io_uring_enter', 'io_uring_enter', [M1, 0n, 0n, 0n, 0n, 0n], 'EPERM', true],
  ['io_uring_register', 'io_uring_register', [M1, 0n, 0n, 0n], 'EPERM', true],
  ['ptrace', 'ptrace', [3n, 0x7ffffff0n, 0n, 0n], 'EPERM', true],
  ['process_vm_readv', 'process_vm_readv', [0n, 0n, 0n, 0n, 0n, 1n], 'EPERM', true],
  ['process_vm_writev', 'process_vm_writev', [0n, 0n, 0n, 0n, 0n, 1n], 'EPERM', true],
  ['pidfd_getfd', 'pidfd_getfd', [M1, 0n, 1n], 'EPERM', true],
  ['mount', 'mount', [BAD, BAD, BAD, 0n, 0n], 'EPERM', true],
  ['umount2', 'umount2', [BAD, 0x80000000n], 'EPERM', true],
  ['pivot_root', 'pivot_root', [BAD, BAD], 'EPERM', false],
  ['move_mount', 'move_mount', [M1, BAD, M1, BAD, all], 'EPERM', false],
  ['open_tree', 'open_tree', [M1, BAD, all], 'EPERM', true],
  ['open_tree_attr', 'open_tree_attr', [M1, BAD, all, 0n, 0n], 'EPERM', true],
  ['fsopen', 'fsopen', [BAD, all], 'EPERM', false],
  ['fsconfig', 'fsconfig', [M1, 0xffffn, 0n, 0n, 0n], 'EPERM', true],
  ['fsmount', 'fsmount', [M1, all, 0n], 'EPERM', false],
  ['fspick', 'fspick', [M1, BAD, all], 'EPERM', false],
  ['mount_setattr', 'mount_setattr', [M1, BAD, all, 0n, 0n], 'EPERM', true],
  ['unshare-0', 'unshare', [0n], 'EPERM', true, { inChild: true }],
  ['unshare-newuser', 'unshare', [0x10000000n], 'EPERM', true, { inChild: true }],
  ['setns', 'setns', [M1, 0n], 'EPERM', true],
  ['clone3', 'clone3', [BAD, 0n], 'ENOSYS', true],
  ['keyctl', 'keyctl', [0xffffn, 0n, 0n], 'EPERM', true],
  ['add_key', 'add_key', [BAD, BAD, 0n, 0n, 0n], 'EPERM', true],
  ['request_key', 'request_key', [BAD, BAD, 0n, 0n], 'EPERM', true],
  ['bpf', 'bpf', [M1, 0n, 0n], 'EPERM', false],
  ['perf_event_open', 'perf_event_open', [0n, 0n, M1, M1, all], 'EPERM', true],
  ['userfaultfd', 'userfaultfd', [1n], 'EPERM', true, { closeFd: true }],
  ['kexec_load', 'kexec_load', [0n, 0n, 0n, all], 'EPERM', false],
  ['kexec_file_load', 'kexec_file_load', [M1, M1, 0n, 0n, all], 'EPERM', false],
  ['init_module', 'init_module', [0n, 0n, 0n], 'EPERM', false],
  ['finit_module', 'finit_module', [M1, 0n, all], 'EPERM', false],
  ['delete_module', 'delete_module', [BAD, 0n], 'EPERM', false],
  ['acct', 'acct', [0n], 'EPERM', false],
  ['swapon', 'swapon', [BAD, 0n], 'EPERM', false],
  ['swapoff', 'swapoff', [BAD], 'EPERM', false],
  ['reboot', 'reboot', [0n, 0n, 0n, 0n], 'EPERM', false],
  ['settimeofday', 'settimeofday', [0n, 0n], 'EPERM', false],
  ['clock_settime', 'clock_settime', [0n, BAD], 'EPERM', true],
  ['clock_adjtime', 'clock_adjtime', [0n, BAD], 'EPERM', true],
  ['adjtimex', 'adjtimex', [BAD], 'EPERM', true],
  ['name_to_handle_at', 'name_to_handle_at', [M1, BAD, BAD, BAD, all], 'EPERM', true],
  ['open_by_handle_at', 'open_by_handle_at', [M1, BAD, 0n], 'EPERM', false],
  ['lookup_dcookie', 'lookup_dcookie', [0n, 0n, 0n], 'EPERM', true],
  ['quotactl', 'quotactl', [0n, 0n, 0n, 0n], 'EPERM', false],
  ['quotactl_fd', 'quotactl_fd', [M1, 0n, 0n, 0n], 'EPERM', true],
  ['syslog', 'syslog', [10n, 0n, 0n], 'EPERM', false],
  ['uselib', 'uselib', [BAD], 'EPERM', true],
  ['vhangup', 'vhangup', [], 'EPERM', false],
  ['nfsservctl', 'nfsservctl', [0n, 0n, 0n], 'EPERM', true],
  ['ioctl-tiocsti', 'ioctl', [0n, 0x5412n, BAD], 'EPERM', true],
  ['ioctl-tiocsti-high-word', 'ioctl', [0n, HIGH | 0x5412n, BAD], 'EPERM', true],
  ['ioctl-tioclinux', 'ioctl', [0n, 0x541cn, BAD], 'EPERM', true],
  ['ioctl-tcgets', 'ioctl', [0n, 0x5401n, BAD], 'ALLOWED', false],
  ['personality-no-aslr', 'personality', [0x0040000n], 'EPERM', true, { inChild: true }],
  ['personality-query', 'personality', [all], 'ALLOWED', false],
  // On fd -1 the kernel answers EBADF: a refusal before it is the filter's.
  ['fchmod-setuid', 'fchmod', [M1, 0o4755n], 'EPERM', true],
  ['fchmod-other-write', 'fchmod', [M1, HIGH | 0o666n], 'EPERM', true],
  ['fchmod-plain', 'fchmod', [M1, 0o644n], 'ALLOWED', false],
  // EOPNOTSUPP, which Python names by its other name.
  ['fsetxattr', 'fsetxattr', [M1, BAD, BAD, 0n, 0n], 'ENOTSUP', true],
  ['fchown-group', 'fchown', [M1, all, 100n], 'EPERM', true],
  ['fchown-unchanged', 'fchown', [M1, all, all], 'ALLOWED', false],
  ['getpid', 'getpid', [], 'ALLOWED', false],
  // Outside the allowlist (Docker or Flatpak refuse them, or they are newer than the table).
  ['modify_ldt', 'modify_ldt', [0n, BAD, 16n], 'EPERM', true],
  ['kcmp', 'kcmp', [M1, M1, 0n, 0n, 0n], 'EPERM', true],
  ['move_pages', 'move_pages', [0n, 1n, BAD, 0n, BAD, 0n], 'EPERM', true],
  ['migrate_pages', 'migrate_pages', [0n, 1n, BAD, BAD], 'EPERM', true],
  ['mbind', 'mbind', [0n, 0n, 0n, 0n, 0n, 0n], 'EPERM', true],
  ['set_mempolicy', 'set_mempolicy', [0n, 0n, 0n], 'EPERM', true],
  ['memfd_secret', 'memfd_secret', [all], 'EPERM', true],
  ['process_madvise', 'process_madvise', [M1, 0n, 0n, 0n, 0n], 'EPERM', true],
  ['statmount', 'statmount', [BAD, BAD, 0n, 0n], 'EPERM', true],
  ['listmount', 'listmount', [BAD, BAD, 0n, 0n], 'EPERM', true],
  ['file_getattr', 'file_getattr', [M1, BAD, BAD, 0n, 0n], 'ENOSYS', true],
  ['unknown-470', 'getpid', [], 'ENOSYS', false, { nr: 470 }],
  ['unknown-1000', 'getpid', [], 'ENOSYS', false, { nr: 1000 }],
  ['memfd_create', 'memfd_create', [BAD, 0n], 'ALLOWED', false],
  ['x32-getpid', 'getpid', [], 'EPERM', true, { nrBits: 0x40000000 }],
];

/** The raw checks that apply to `arch`, with syscall numbers resolved. */
export function rawChecks(arch: SeccompArch): (RawCheck & { nr: number })[] {
  return rows.flatMap(([name, syscall, args, expect, discriminates, extra]) => {
    const nr = syscallNumber(arch, syscall);
    if (nr === undefined || (extra?.nrBits !== undefined && arch !== 'x64')) return [];
    const base = { name, syscall, args, expect, discriminates, ...extra };
    return [{ ...base, nr: extra?.nr ?? nr | (extra?.nrBits ?? 0) }];
  });
}

/** Raw fork-like clones the probe makes, by name: flag value to OR into SIGCHLD. */
export const cloneChecks: Record<string, { flags: number; expect: string }> = {
  'clone-newuser': { flags: 0x10000000, expect: 'EPERM' },
  'clone-newns': { flags: 0x00020000, expect: 'EPERM' },
  'clone-newnet': { flags: 0x40000000, expect: 'EPERM' },
  // CLONE_NEWTIME (0x80) lies inside CSIGNAL for the legacy clone, so it cannot be tried here.
  'clone-all-new': { flags: cloneNewNamespaceMask & ~0xff, expect: 'EPERM' },
  'clone-plain': { flags: 0, expect: 'ALLOWED' },
};
