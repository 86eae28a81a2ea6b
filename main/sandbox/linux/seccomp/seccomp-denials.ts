/**
 * Syscalls the sandbox refuses whatever their arguments, each group with the reason. They return
 * an errno, never kill: ordinary programs probe for features and must see a clean "not
 * available". EPERM is the answer for a call that exists but is not allowed here. ENOSYS is used
 * where a caller treats "this kernel lacks it" as the cue to fall back (glibc's clone3 wrapper
 * falls back to clone; newer calls such as file_getattr fall back to their ioctl), and for calls
 * this kernel never implemented, which answer ENOSYS without the filter too.
 */
import type { SeccompRule } from './seccomp-rules';
import type { SyscallName } from './syscall-numbers';

/** Refused with EPERM whatever the arguments: the call exists but is not allowed here. */
export function refuse(syscalls: readonly SyscallName[], summary: string, reason: string) {
  return { syscalls, when: { kind: 'always' }, errno: 'EPERM', summary, reason } as const;
}

/** Refused with ENOSYS whatever the arguments: callers take it as "this kernel lacks it". */
export function absent(syscalls: readonly SyscallName[], summary: string, reason: string) {
  return { syscalls, when: { kind: 'always' }, errno: 'ENOSYS', summary, reason } as const;
}

export const refusedSyscalls: readonly SeccompRule[] = [
  refuse(
    ['io_uring_setup', 'io_uring_enter', 'io_uring_register'],
    'io_uring',
    'its operations bypass seccomp and it is frequent kernel attack surface',
  ),
  refuse(
    ['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'],
    'ptrace, process_vm_readv/writev, pidfd_getfd',
    "another sandboxed process's memory or file descriptors (the egress channel) stay its own",
  ),
  refuse(
    [
      'mount',
      'umount2',
      'pivot_root',
      'move_mount',
      'open_tree',
      'open_tree_attr',
      'fsopen',
      'fsconfig',
      'fsmount',
      'fspick',
      'mount_setattr',
    ],
    'mount, umount2, pivot_root and the new mount API',
    'the filesystem view is fixed when the sandbox starts',
  ),
  refuse(
    ['keyctl', 'add_key', 'request_key'],
    'kernel keyrings',
    'keyrings are not namespaced and may hold the user’s keys',
  ),
  refuse(
    ['bpf', 'perf_event_open', 'userfaultfd'],
    'bpf, perf_event_open, userfaultfd',
    'kernel attack surface and exploit helpers with no use for an MCP server',
  ),
  refuse(
    [
      'kexec_load',
      'kexec_file_load',
      'init_module',
      'finit_module',
      'delete_module',
      'reboot',
      'swapon',
      'swapoff',
      'acct',
      'syslog',
      'quotactl',
      'quotactl_fd',
      'vhangup',
      'uselib',
      'nfsservctl',
      'lookup_dcookie',
    ],
    'kernel modules, kexec, reboot, swap, accounting, kernel log, quotas and obsolete calls',
    'system administration, never needed inside a sandbox',
  ),
  refuse(
    ['settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex'],
    'setting or adjusting the system clock',
    'the clock belongs to the host',
  ),
  refuse(
    ['name_to_handle_at', 'open_by_handle_at'],
    'file handles (name_to_handle_at, open_by_handle_at)',
    'opening by handle reaches files outside the bound directories',
  ),
  refuse(
    ['modify_ldt', 'iopl', 'ioperm'],
    'modify_ldt, iopl, ioperm',
    'x86 descriptor tables and port I/O: old exploit aids (Docker and Flatpak refuse them)',
  ),
  refuse(
    ['kcmp', 'process_madvise'],
    'kcmp, process_madvise',
    'they inspect or act on the kernel objects and memory of other processes',
  ),
  refuse(
    [
      'mbind',
      'set_mempolicy',
      'get_mempolicy',
      'set_mempolicy_home_node',
      'migrate_pages',
      'move_pages',
    ],
    'NUMA memory placement (mbind, set/get_mempolicy, migrate_pages, move_pages)',
    'they move the pages of this or other processes; Docker allows them only with CAP_SYS_NICE',
  ),
  refuse(
    ['memfd_secret'],
    'memfd_secret',
    'memory removed from the kernel’s own mappings, unseen by anything that inspects the sandbox',
  ),
  refuse(
    ['statmount', 'listmount'],
    'statmount, listmount',
    'they describe mounts by id, including host paths the sandbox’s view leaves out',
  ),
  refuse(
    ['chroot', 'sethostname', 'setdomainname', 'fanotify_init'],
    'chroot, sethostname, setdomainname, fanotify_init',
    'administration calls that need capabilities the sandbox does not have',
  ),
  refuse(
    ['lsm_get_self_attr', 'lsm_set_self_attr', 'lsm_list_modules'],
    'LSM attribute calls',
    'the security modules’ labels belong to the host’s policy',
  ),
  refuse(
    ['sysfs', 'ustat', '_sysctl'],
    'sysfs, ustat, _sysctl',
    'obsolete interfaces to kernel and filesystem state',
  ),
  absent(
    ['file_getattr', 'file_setattr'],
    'file_getattr, file_setattr (callers fall back to the FS_IOC_FSGETXATTR ioctl)',
    'newer than the calls reviewed for the sandbox; refused until someone reviews them',
  ),
  absent(
    [
      'create_module',
      'get_kernel_syms',
      'query_module',
      'afs_syscall',
      'tuxcall',
      'security',
      'vserver',
      'getpmsg',
      'putpmsg',
      'epoll_ctl_old',
      'epoll_wait_old',
    ],
    'numbers 64-bit Linux reserves but never implemented',
    'the kernel answers ENOSYS for them anyway; the filter gives the same answer',
  ),
];
