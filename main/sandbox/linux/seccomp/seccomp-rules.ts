/**
 * The seccomp filter's rules, as data: syscalls allowed only with certain arguments, and (from
 * `seccomp-denials.ts`) syscalls refused outright. The program builder compiles them in front of
 * the allowlist (`seccomp-allowlist.ts`), and `warden doctor` and the docs list them. The filter
 * is default-deny: a syscall neither here nor in the allowlist is refused with EPERM, and a
 * number the syscall table does not know (a newer kernel's) with ENOSYS, the answer libraries
 * take as "this kernel lacks it" and fall back from, as runc does for containers.
 *
 * Argument conditions compare only the low 32 bits of a u64 argument, on purpose: every argument
 * tested here is an `int` or `unsigned int` in the kernel (socket and socketpair `family`, ioctl
 * `cmd`, personality `persona`) or is cut to its low half by the kernel (clone's flags go through
 * `lower_32_bits`). The high half is ignored by the kernel, so it must be ignored here too, or
 * setting it (sign extension, garbage) would slip a refused value past the filter.
 */
import { absent, refuse, refusedSyscalls } from './seccomp-denials';
import type { SyscallName } from './syscall-numbers';

/** errno values; identical on x86-64 and arm64 (asm-generic/errno*.h). */
export const errnoValues = {
  EPERM: 1,
  EACCES: 13,
  ENOSYS: 38,
  EOPNOTSUPP: 95,
  EAFNOSUPPORT: 97,
} as const;
export type SeccompErrno = keyof typeof errnoValues;

export type SeccompCondition =
  /** Refused whatever the arguments. */
  | { kind: 'always' }
  /** Refused when (low 32 bits of args[arg]) & mask != 0. */
  | { kind: 'arg-has-any-bit'; arg: number; mask: number }
  /** Refused when the low 32 bits of args[arg] equal one of `values`. */
  | { kind: 'arg-is-one-of'; arg: number; values: readonly number[] }
  /** Refused unless the low 32 bits of args[arg] equal one of `values` (an allow-list). */
  | { kind: 'arg-is-none-of'; arg: number; values: readonly number[] }
  /** Refused unless each listed argument's low 32 bits equal one of its `values`. */
  | { kind: 'args-are-none-of'; args: readonly { arg: number; values: readonly number[] }[] };

export interface SeccompRule {
  syscalls: readonly SyscallName[];
  when: SeccompCondition;
  errno: SeccompErrno;
  /** What is refused, in words a person reads in `warden doctor`. */
  summary: string;
  /** Why it is refused. */
  reason: string;
}

export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_UNIX = 1;
export const AF_NETLINK = 16;
export const AF_PACKET = 17;

/**
 * Every CLONE_NEW* namespace flag. CLONE_NEWTIME (0x80) lies inside CSIGNAL for the legacy clone,
 * where the kernel reads it as part of the exit signal (never valid above 64), so refusing that
 * bit costs nothing and covers kernels that would ever treat it as a namespace flag.
 */
export const cloneNewNamespaceMask =
  0x00000080 | // CLONE_NEWTIME
  0x00020000 | // CLONE_NEWNS
  0x02000000 | // CLONE_NEWCGROUP
  0x04000000 | // CLONE_NEWUTS
  0x08000000 | // CLONE_NEWIPC
  0x10000000 | // CLONE_NEWUSER
  0x20000000 | // CLONE_NEWPID
  0x40000000; // CLONE_NEWNET

/**
 * The mode bits chmod may not set: set-user-ID and set-group-ID (a program of the user's that
 * another local user would run as the user) and write for others (a file of the user's that
 * anyone could change later, outside any sandbox; under Landlock even one the server may only
 * read, since Landlock does not govern chmod).
 */
export const refusedModeBits = 0o4000 | 0o2000 | 0o0002;

const modeReason =
  'another local user could run a set-ID program as you, or change a world-writable file of yours ' +
  'after the server has stopped';

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;

/** personality(2) values that stay allowed: PER_LINUX, PER_LINUX32, UNAME26 forms, and query. */
export const allowedPersonalities = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff] as const;

/** Choices a caller may make about the filter; the defaults are the strictest. */
export interface SeccompOptions {
  /**
   * Let `socketpair(AF_UNIX, …)` through. A pair is anonymous and connected only to itself, so it
   * reaches nothing outside the sandbox, but refusing it breaks Node's `child_process` pipes and
   * every Python asyncio event loop (its self-pipe is a socketpair). `socket(AF_UNIX)` stays
   * refused either way. Default false.
   */
  allowUnixSocketpair?: boolean;
  /**
   * Refuse the ways to hold memory that no rlimit counts once it is unmapped: memfd_create, System
   * V shared memory (shmget) and message queues (msgget). Set when the memory limit is per process
   * (RLIMIT_AS) because no cgroup holds the whole sandbox; files in its tmpfs mounts are capped
   * separately. They answer ENOSYS, on which programs fall back to a file in /tmp or /dev/shm.
   * Default false.
   */
  refuseUncountedMemory?: boolean;
  /**
   * The user and group the sandboxed process runs as, which chown may still name (a no-op for
   * the owner). Absent: chown may change neither.
   */
  ownIds?: { uid: number; gid: number };
}

const socketReason =
  'Unix sockets reach host services through bound paths; netlink, packet, vsock and rare ' +
  'families are kernel attack surface or routes around the empty network namespace';

/** The syscall rules for `options`, in the order the program tests them. */
export function seccompRulesFor(options: SeccompOptions = {}): readonly SeccompRule[] {
  const pairFamilies = options.allowUnixSocketpair
    ? [AF_INET, AF_INET6, AF_UNIX]
    : [AF_INET, AF_INET6];
  return [
    {
      syscalls: ['socket'],
      when: { kind: 'arg-is-none-of', arg: 0, values: [AF_INET, AF_INET6] },
      errno: 'EAFNOSUPPORT',
      summary: 'sockets other than AF_INET/AF_INET6 (AF_UNIX, AF_NETLINK, AF_PACKET, AF_VSOCK, …)',
      reason: socketReason,
    },
    {
      syscalls: ['socketpair'],
      when: { kind: 'arg-is-none-of', arg: 0, values: pairFamilies },
      errno: 'EAFNOSUPPORT',
      summary: options.allowUnixSocketpair
        ? 'socketpair other than AF_UNIX/AF_INET/AF_INET6'
        : 'socketpair other than AF_INET/AF_INET6 (so no AF_UNIX pairs)',
      reason: socketReason,
    },
    ...(options.refuseUncountedMemory ? [uncountedMemoryRule] : []),
    ...chownRules(options.ownIds),
    ...fixedRules,
  ];
}

/** chown's "leave it as it is". */
const UNCHANGED = 0xffffffff;

/**
 * chown only to the sandboxed user and group. Outside a user namespace (Landlock) the kernel lets
 * the owner give a file to any group the user is in, even a file the server may only read;
 * bubblewrap's namespace maps no other group, so there it changes nothing.
 */
function chownRules(own: SeccompOptions['ownIds']): SeccompRule[] {
  const ids = (id: number | undefined) => (id === undefined ? [UNCHANGED] : [UNCHANGED, id]);
  const rule = (syscalls: SyscallName[], at: number): SeccompRule => ({
    syscalls,
    when: {
      kind: 'args-are-none-of',
      args: [
        { arg: at, values: ids(own?.uid) },
        { arg: at + 1, values: ids(own?.gid) },
      ],
    },
    errno: 'EPERM',
    summary: `${syscalls.join(', ')} naming another user or group than the sandbox's own`,
    reason:
      'a group the user is in (adm, users, a team’s) would let its other members read or, with ' +
      'chmod g+w, change the file',
  });
  return [rule(['chown', 'fchown', 'lchown'], 1), rule(['fchownat'], 2)];
}

const uncountedMemoryRule: SeccompRule = {
  syscalls: ['memfd_create', 'shmget', 'msgget'],
  when: { kind: 'always' },
  errno: 'ENOSYS',
  summary: 'memfd_create, shmget and msgget, when memory is limited per process',
  reason:
    'their pages and queued messages outlive any mapping, so RLIMIT_AS does not count them ' +
    '(System V message queues alone may hold about 500 MB in a fresh IPC namespace)',
};

const fixedRules: readonly SeccompRule[] = [
  {
    syscalls: ['clone'],
    when: { kind: 'arg-has-any-bit', arg: 0, mask: cloneNewNamespaceMask },
    errno: 'EPERM',
    summary: 'clone with any CLONE_NEW* namespace flag',
    reason: 'a new user namespace gives back every capability the sandbox dropped',
  },
  absent(
    ['clone3'],
    'clone3 (libc falls back to clone)',
    'its flags live in memory where seccomp cannot read them',
  ),
  refuse(
    ['unshare', 'setns'],
    'unshare, setns',
    'entering or creating namespaces undoes the sandbox',
  ),
  {
    syscalls: ['ioctl'],
    when: { kind: 'arg-is-one-of', arg: 1, values: [TIOCSTI, TIOCLINUX] },
    errno: 'EPERM',
    summary: 'ioctl TIOCSTI and TIOCLINUX',
    reason: 'they type keystrokes into the terminal the sandbox was started from',
  },
  {
    syscalls: ['chmod', 'fchmod'],
    when: { kind: 'arg-has-any-bit', arg: 1, mask: refusedModeBits },
    errno: 'EPERM',
    summary: 'chmod and fchmod setting set-user-ID, set-group-ID or write for others',
    reason: modeReason,
  },
  {
    syscalls: ['fchmodat', 'fchmodat2'],
    when: { kind: 'arg-has-any-bit', arg: 2, mask: refusedModeBits },
    errno: 'EPERM',
    summary: 'fchmodat and fchmodat2 setting set-user-ID, set-group-ID or write for others',
    reason: modeReason,
  },
  {
    syscalls: ['setxattr', 'lsetxattr', 'fsetxattr', 'setxattrat'],
    when: { kind: 'always' },
    // What a filesystem without extended attributes answers: cp -a, rsync and tar carry on.
    errno: 'EOPNOTSUPP',
    summary: 'setting extended attributes (so no access control lists)',
    reason:
      'an ACL gives other users write (system.posix_acl_access) or every new file in a folder ' +
      '(system.posix_acl_default) past the chmod rules; under Landlock, even on files only read',
  },
  {
    syscalls: ['personality'],
    when: { kind: 'arg-is-none-of', arg: 0, values: allowedPersonalities },
    errno: 'EPERM',
    summary: 'personality changes other than PER_LINUX/PER_LINUX32 or a query',
    reason: 'flags such as ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC weaken memory protections',
  },
  ...refusedSyscalls,
];

/** The rules of the default (strictest) filter. */
export const seccompRules: readonly SeccompRule[] = seccompRulesFor();

/** What the program refuses before it looks at any syscall, for `warden doctor` and the docs. */
export const seccompArchRules: readonly { summary: string; action: string; reason: string }[] = [
  {
    summary: 'any syscall made through a foreign architecture (e.g. i386 `int 0x80` on x86-64)',
    action: 'kill the process',
    reason: 'its syscall numbers mean other calls, so no rule here would apply to them',
  },
  {
    summary: 'any syscall of the x32 ABI (x86-64 only)',
    action: 'EPERM',
    reason: 'x32 numbers alias the x86-64 calls the rules refuse',
  },
];
