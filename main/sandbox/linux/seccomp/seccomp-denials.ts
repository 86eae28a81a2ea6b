/**
 * Syscalls the sandbox refuses whatever their arguments, each group with the reason. They return
 * an errno, never kill: ordinary programs probe for features and must see a clean "not
 * available". EPERM is the answer for a call that exists but is not allowed here. ENOSYS is used
 * where a caller treats "this kernel lacks it" as the cue to fall back (glibc's clone3 wrapper
 * falls back to clone; newer calls such as file_getattr fall back to their ioctl), and for calls
 * this kernel never implemented, which answer ENOSYS without the filter too.
 */
import type { SeccompRule } from './seccomp-rules';

export const refusedSyscalls: readonly SeccompRule[] = [
  {
    syscalls: ['io_uring_setup', 'io_uring_enter', 'io_uring_register'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'io_uring',
    reason: 'its operations bypass seccomp and it is frequent kernel attack surface',
  },
  {
    syscalls: ['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'ptrace, process_vm_readv/writev, pidfd_getfd',
    reason:
      "another sandboxed process's memory or file descriptors (the egress channel) stay its own",
  },
  {
    syscalls: [
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
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'mount, umount2, pivot_root and the new mount API',
    reason: 'the filesystem view is fixed when the sandbox starts',
  },
  {
    syscalls: ['keyctl', 'add_key', 'request_key'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'kernel keyrings',
    reason: 'keyrings are not namespaced and may hold the user’s keys',
  },
  {
    syscalls: ['bpf', 'perf_event_open', 'userfaultfd'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'bpf, perf_event_open, userfaultfd',
    reason: 'kernel attack surface and exploit helpers with no use for an MCP server',
  },
  {
    syscalls: [
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
    when: { kind: 'always' },
    errno: 'EPERM',
    summary:
      'kernel modules, kexec, reboot, swap, accounting, kernel log, quotas and obsolete calls',
    reason: 'system administration, never needed inside a sandbox',
  },
  {
    syscalls: ['settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'setting or adjusting the system clock',
    reason: 'the clock belongs to the host',
  },
  {
    syscalls: ['name_to_handle_at', 'open_by_handle_at'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'file handles (name_to_handle_at, open_by_handle_at)',
    reason: 'opening by handle reaches files outside the bound directories',
  },
  {
    syscalls: ['modify_ldt', 'iopl', 'ioperm'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'modify_ldt, iopl, ioperm',
    reason: 'x86 descriptor tables and port I/O: old exploit aids (Docker and Flatpak refuse them)',
  },
  {
    syscalls: ['kcmp', 'process_madvise'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'kcmp, process_madvise',
    reason: 'they inspect or act on the kernel objects and memory of other processes',
  },
  {
    syscalls: [
      'mbind',
      'set_mempolicy',
      'get_mempolicy',
      'set_mempolicy_home_node',
      'migrate_pages',
      'move_pages',
    ],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'NUMA memory placement (mbind, set/get_mempolicy, migrate_pages, move_pages)',
    reason:
      'they move the pages of this or other processes; Docker allows them only with CAP_SYS_NICE',
  },
  {
    syscalls: ['memfd_secret'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'memfd_secret',
    reason:
      'memory removed from the kernel’s own mappings, unseen by anything that inspects the sandbox',
  },
  {
    syscalls: ['statmount', 'listmount'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'statmount, listmount',
    reason: 'they describe mounts by id, including host paths the sandbox’s view leaves out',
  },
  {
    syscalls: ['chroot', 'sethostname', 'setdomainname', 'fanotify_init'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'chroot, sethostname, setdomainname, fanotify_init',
    reason: 'administration calls that need capabilities the sandbox does not have',
  },
  {
    syscalls: ['lsm_get_self_attr', 'lsm_set_self_attr', 'lsm_list_modules'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'LSM attribute calls',
    reason: 'the security modules’ labels belong to the host’s policy',
  },
  {
    syscalls: ['sysfs', 'ustat', '_sysctl'],
    when: { kind: 'always' },
    errno: 'EPERM',
    summary: 'sysfs, ustat, _sysctl',
    reason: 'obsolete interfaces to kernel and filesystem state',
  },
  {
    syscalls: ['file_getattr', 'file_setattr'],
    when: { kind: 'always' },
    errno: 'ENOSYS',
    summary: 'file_getattr, file_setattr (callers fall back to the FS_IOC_FSGETXATTR ioctl)',
    reason: 'newer than the calls reviewed for the sandbox; refused until someone reviews them',
  },
  {
    syscalls: [
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
    when: { kind: 'always' },
    errno: 'ENOSYS',
    summary: 'numbers 64-bit Linux reserves but never implemented',
    reason: 'the kernel answers ENOSYS for them anyway; the filter gives the same answer',
  },
];
