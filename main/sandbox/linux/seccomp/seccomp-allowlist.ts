/**
 * The syscalls the sandbox lets through unconditionally, grouped by what programs use them for.
 * The list follows Docker's default profile (moby/profiles/seccomp/default.json), narrowed where
 * an MCP server has no use for a call. Node, Python (asyncio, subprocess, threads), uv, npm, Go
 * and Rust binaries, git, curl and ripgrep run on it. Syscalls named in `seccomp-rules.ts` are
 * allowed with argument conditions or refused; anything in neither list is refused too, and a test
 * checks that every syscall of the table is classified exactly once.
 */
import { syscallNames, type SyscallName } from './syscall-numbers';

const known = new Set<string>(syscallNames);

/** Splits a list of syscall names; a name the table does not know is a programming error. */
function names(list: string): SyscallName[] {
  const out = list.trim().split(/\s+/);
  const unknown = out.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`not in the syscall table: ${unknown.join(', ')}`);
  return out as SyscallName[];
}

export interface AllowedGroup {
  purpose: string;
  syscalls: readonly SyscallName[];
}

export const allowedSyscalls: readonly AllowedGroup[] = [
  {
    purpose: 'files and folders (only those the sandbox can see)',
    syscalls: names(`
      read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek open
      openat openat2 creat close close_range stat fstat lstat newfstatat statx statfs
      fstatfs access faccessat faccessat2 getdents getdents64 getcwd chdir fchdir rename
      renameat renameat2 mkdir mkdirat rmdir link linkat unlink unlinkat symlink symlinkat
      readlink readlinkat umask truncate ftruncate fallocate utime utimes utimensat futimesat
      mknod mknodat
      flock fcntl dup dup2 dup3 pipe pipe2 splice tee vmsplice sendfile copy_file_range
      fsync fdatasync sync syncfs sync_file_range readahead fadvise64 cachestat getxattr
      lgetxattr fgetxattr listxattr llistxattr flistxattr removexattr lremovexattr
      fremovexattr getxattrat listxattrat removexattrat
    `),
  },
  {
    purpose: 'waiting for events (event loops of Node, Python asyncio, Go, tokio)',
    syscalls: names(`
      poll ppoll select pselect6 epoll_create epoll_create1 epoll_ctl epoll_wait
      epoll_pwait epoll_pwait2 eventfd eventfd2 signalfd signalfd4 inotify_init
      inotify_init1 inotify_add_watch inotify_rm_watch fanotify_mark timerfd_create
      timerfd_settime timerfd_gettime pause io_setup io_destroy io_getevents io_pgetevents
      io_submit io_cancel
    `),
  },
  {
    purpose: 'sockets already made (which sockets may be made is decided by the socket rules)',
    syscalls: names(`
      connect accept accept4 bind listen getsockname getpeername getsockopt setsockopt
      shutdown sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg
    `),
  },
  {
    purpose: 'memory of the process itself',
    syscalls: names(`
      brk mmap munmap mremap mprotect madvise mincore msync mlock mlock2 munlock mlockall
      munlockall remap_file_pages pkey_alloc pkey_free pkey_mprotect membarrier mseal
      map_shadow_stack memfd_create
    `),
  },
  {
    purpose: 'System V and POSIX IPC, private to the sandbox’s own IPC namespace',
    syscalls: names(`
      shmget shmat shmdt shmctl semget semop semtimedop semctl msgget msgsnd msgrcv msgctl
      mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
    `),
  },
  {
    purpose: 'processes, threads and signals inside the sandbox’s own pid namespace',
    syscalls: names(`
      fork vfork execve execveat exit exit_group wait4 waitid kill tkill tgkill pidfd_open
      pidfd_send_signal process_mrelease rt_sigaction rt_sigprocmask rt_sigreturn
      rt_sigpending rt_sigtimedwait rt_sigqueueinfo rt_tgsigqueueinfo rt_sigsuspend
      sigaltstack restart_syscall set_tid_address set_robust_list get_robust_list futex
      futex_waitv futex_wake futex_wait futex_requeue rseq arch_prctl set_thread_area
      get_thread_area prctl uretprobe
    `),
  },
  {
    purpose: 'identity and limits (no capabilities: they can only be read or lowered)',
    syscalls: names(`
      getpid getppid gettid getuid geteuid getgid getegid getresuid getresgid getgroups
      setuid setgid setreuid setregid setresuid setresgid setfsuid setfsgid setgroups
      capget capset getpgid setpgid getpgrp getsid setsid getrlimit setrlimit prlimit64
      getrusage getpriority setpriority ioprio_get ioprio_set
    `),
  },
  {
    purpose: 'scheduling and time (reading the clock, never setting it)',
    syscalls: names(`
      sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_setparam
      sched_getscheduler sched_setscheduler sched_getattr sched_setattr
      sched_get_priority_max sched_get_priority_min sched_rr_get_interval getcpu time
      gettimeofday clock_gettime clock_getres clock_nanosleep nanosleep alarm getitimer
      setitimer timer_create timer_settime timer_gettime timer_getoverrun timer_delete
      times
    `),
  },
  {
    purpose: 'the system, read-only, and self-confinement',
    syscalls: names(`
      uname sysinfo getrandom seccomp landlock_create_ruleset landlock_add_rule
      landlock_restrict_self
    `),
  },
];

/** Every syscall allowed without conditions. */
export const allowedSyscallNames: readonly SyscallName[] = allowedSyscalls.flatMap(
  (g) => g.syscalls,
);
