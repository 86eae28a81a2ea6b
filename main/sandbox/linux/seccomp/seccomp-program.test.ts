import { describe, expect, it } from 'vitest';
import { bpfMaxInstructions, bpfOp, decodeSockFilters } from './bpf-assembler';
import { runSeccompProgram, type SeccompDataInput } from './bpf-interpreter';
import {
  auditArch,
  buildSeccompProgram,
  errnoAction,
  seccompArchFor,
  seccompRet,
  x32SyscallBit,
} from './seccomp-program';
import { AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_UNIX, seccompRules } from './seccomp-rules';
import { allowedSyscallNames } from './seccomp-allowlist';
import { syscallNames, syscallNumber, type SeccompArch, type SyscallName } from './syscall-numbers';

const archs: SeccompArch[] = ['x64', 'arm64'];
const highGarbage = 0xdeadbeef_00000000n;
const EAFNOSUPPORT = errnoAction('EAFNOSUPPORT');
const EPERM = errnoAction('EPERM');

describe.each(archs)('seccomp program (%s)', (arch) => {
  const program = decodeSockFilters(buildSeccompProgram(arch));
  const nr = (name: SyscallName): number => {
    const n = syscallNumber(arch, name);
    if (n === undefined) throw new Error(`${name} missing on ${arch}`);
    return n;
  };
  const run = (name: SyscallName, args: bigint[] = [], data: Partial<SeccompDataInput> = {}) =>
    runSeccompProgram(program, { nr: nr(name), arch: auditArch[arch], args, ...data });

  it('kills a foreign architecture before looking at the syscall number', () => {
    const foreign = [0x40000003, 0x40000028, arch === 'x64' ? auditArch.arm64 : auditArch.x64, 0];
    for (const a of foreign) {
      expect(run('read', [], { arch: a })).toBe(seccompRet.killProcess);
      expect(run('ptrace', [], { arch: a })).toBe(seccompRet.killProcess);
    }
  });

  it('refuses the x32 ABI on x86-64 (on arm64 such numbers are unknown: ENOSYS)', () => {
    for (const name of ['read', 'getpid', 'socket', 'openat'] as const) {
      const expected = arch === 'x64' ? EPERM : errnoAction('ENOSYS');
      expect(run(name, [], { nr: nr(name) | x32SyscallBit })).toBe(expected);
    }
  });

  it('refuses every unconditional rule with its errno, whatever the arguments', () => {
    let checked = 0;
    for (const rule of seccompRules.filter((r) => r.when.kind === 'always')) {
      for (const name of rule.syscalls.filter((s) => syscallNumber(arch, s) !== undefined)) {
        expect(run(name), name).toBe(errnoAction(rule.errno));
        expect(run(name, [0xffffffffffffffffn, 1n, 2n]), name).toBe(errnoAction(rule.errno));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(run('clone3')).toBe(errnoAction('ENOSYS'));
  });

  it('refuses each syscall the sandbox design names, independently of the rule list', () => {
    const refused: SyscallName[] = [
      ...(['io_uring_setup', 'io_uring_enter', 'io_uring_register', 'ptrace'] as const),
      ...(['process_vm_readv', 'process_vm_writev', 'mount', 'umount2', 'pivot_root'] as const),
      ...(['move_mount', 'open_tree', 'fsopen', 'fsconfig', 'fsmount', 'fspick'] as const),
      ...(['mount_setattr', 'unshare', 'setns', 'keyctl', 'add_key', 'request_key'] as const),
      ...(['bpf', 'perf_event_open', 'userfaultfd', 'kexec_load', 'kexec_file_load'] as const),
      ...(['init_module', 'finit_module', 'delete_module', 'acct', 'swapon', 'swapoff'] as const),
      ...(['reboot', 'settimeofday', 'clock_settime', 'adjtimex', 'name_to_handle_at'] as const),
      ...(['open_by_handle_at', 'lookup_dcookie', 'quotactl', 'syslog', 'vhangup'] as const),
      ...(['nfsservctl'] as const),
    ];
    for (const name of refused) expect(run(name, [0n, 0n]), name).toBe(EPERM);
    expect(run('clone3')).toBe(errnoAction('ENOSYS'));
    if (arch === 'x64') expect(run('uselib')).toBe(EPERM);
    expect(run('socket', [1n, 1n, 0n])).toBe(EAFNOSUPPORT);
    expect(run('socketpair', [1n, 1n, 0n])).toBe(EAFNOSUPPORT);
  });

  it('allows only AF_INET and AF_INET6 for socket and socketpair', () => {
    for (const name of ['socket', 'socketpair'] as const) {
      for (const family of [AF_UNIX, AF_NETLINK, AF_PACKET, 0, 40 /* AF_VSOCK */, 38, 0xffff]) {
        expect(run(name, [BigInt(family), 1n, 0n]), `${name}(${family})`).toBe(EAFNOSUPPORT);
        // The kernel reads `int family`: a set high word must not hide AF_UNIX.
        expect(run(name, [highGarbage | BigInt(family)])).toBe(EAFNOSUPPORT);
      }
      for (const family of [AF_INET, AF_INET6]) {
        expect(run(name, [BigInt(family), 1n, 0n])).toBe(seccompRet.allow);
        expect(run(name, [highGarbage | BigInt(family), 2n, 0n])).toBe(seccompRet.allow);
      }
    }
  });

  it('refuses clone with any CLONE_NEW* flag and allows fork- and thread-style clones', () => {
    const newFlags = [0x80, 0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000];
    for (const flag of [...newFlags, 0x40000000]) {
      expect(run('clone', [BigInt(flag | 17)]), flag.toString(16)).toBe(EPERM);
      expect(run('clone', [highGarbage | BigInt(flag)])).toBe(EPERM);
    }
    const fork = 0x01200011n; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD (glibc fork)
    const thread = 0x003d0f00n; // glibc pthread_create flags
    expect(run('clone', [fork])).toBe(seccompRet.allow);
    expect(run('clone', [thread, 0x7f00_0000_0000n])).toBe(seccompRet.allow);
    // Only the low half reaches the kernel (lower_32_bits), so the high half changes nothing.
    expect(run('clone', [highGarbage | fork])).toBe(seccompRet.allow);
  });

  it('refuses ioctl TIOCSTI and TIOCLINUX whatever the high word, allows other ioctls', () => {
    for (const request of [0x5412n, 0x541cn]) {
      expect(run('ioctl', [0n, request, 0n])).toBe(EPERM);
      expect(run('ioctl', [0n, 0xffffffff_00000000n | request, 0n])).toBe(EPERM);
      expect(run('ioctl', [0n, highGarbage | request, 0n])).toBe(EPERM);
    }
    for (const request of [0x5401n /* TCGETS */, 0x5413n /* TIOCGWINSZ */, 0x541bn, 0x80045430n]) {
      expect(run('ioctl', [1n, request, 0x7ffc_0000n])).toBe(seccompRet.allow);
    }
  });

  it('refuses chmod setting set-user-ID, set-group-ID or write for others, allows other modes', () => {
    const calls = [
      ...(arch === 'x64' ? [['chmod', 1] as const] : []),
      ['fchmod', 1] as const,
      ['fchmodat', 2] as const,
      ['fchmodat2', 2] as const,
    ];
    for (const [name, at] of calls) {
      const call = (mode: bigint) => {
        const args = [3n, 0x7ffc_0000n, 0n, 0n];
        args[at] = mode;
        return run(name, args);
      };
      for (const mode of [0o4755n, 0o2755n, 0o6755n, 0o666n, 0o777n, 0o1777n, 0o4000n])
        expect(call(mode), `${name}(${mode.toString(8)})`).toBe(EPERM);
      expect(call(highGarbage | 0o4755n), name).toBe(EPERM);
      for (const mode of [0o755n, 0o644n, 0o775n, 0o600n, 0o1755n, 0n])
        expect(call(mode), `${name}(${mode.toString(8)})`).toBe(seccompRet.allow);
    }
  });

  it('refuses setting extended attributes as unsupported, allows reading and removing them', () => {
    const EOPNOTSUPP = seccompRet.errno | 95;
    for (const name of ['setxattr', 'lsetxattr', 'fsetxattr', 'setxattrat'] as const)
      expect(run(name, [3n, 0x7ffc_0000n, 0x7ffc_1000n, 44n]), name).toBe(EOPNOTSUPP);
    for (const name of [
      'getxattr',
      'fgetxattr',
      'listxattr',
      'removexattr',
      'fremovexattr',
    ] as const)
      expect(run(name, [3n, 0x7ffc_0000n, 0n, 0n]), name).toBe(seccompRet.allow);
  });

  it("allows chown only to leave an id as it is or name the sandbox's own", () => {
    const own = decodeSockFilters(buildSeccompProgram(arch, { ownIds: { uid: 1000, gid: 1001 } }));
    const calls = [
      ...(arch === 'x64' ? [['chown', 1] as const, ['lchown', 1] as const] : []),
      ['fchown', 1] as const,
      ['fchownat', 2] as const,
    ];
    const unchanged = 0xffffffffn;
    for (const [name, at] of calls) {
      const call = (p: typeof program, owner: bigint, group: bigint) => {
        const args = [3n, 0x7ffc_0000n, 0n, 0n, 0n];
        args[at] = owner;
        args[at + 1] = group;
        return runSeccompProgram(p, { nr: nr(name), arch: auditArch[arch], args });
      };
      for (const [owner, group] of [
        [unchanged, unchanged],
        [1000n, unchanged],
        [unchanged, 1001n],
        [1000n, 1001n],
        [highGarbage | 1000n, 1001n],
      ] as [bigint, bigint][])
        expect(call(own, owner, group), `${name}(${owner}, ${group})`).toBe(seccompRet.allow);
      for (const [owner, group] of [
        [unchanged, 4n /* adm */],
        [unchanged, 100n /* users */],
        [0n, unchanged],
        [1000n, 0n],
        [1002n, 1001n],
        [unchanged, 1000n],
      ] as [bigint, bigint][])
        expect(call(own, owner, group), `${name}(${owner}, ${group})`).toBe(EPERM);
      // Without the sandbox's ids (the strictest filter), chown changes nothing at all.
      expect(call(program, unchanged, unchanged), name).toBe(seccompRet.allow);
      expect(call(program, 1000n, unchanged), name).toBe(EPERM);
      expect(call(program, unchanged, 1001n), name).toBe(EPERM);
    }
  });

  it('allows personality queries and PER_LINUX, refuses other personas', () => {
    for (const p of [0n, 8n, 0xffffffffn, 0x20000n])
      expect(run('personality', [p])).toBe(seccompRet.allow);
    for (const p of [0x0040000n /* ADDR_NO_RANDOMIZE */, 0x0400000n /* READ_IMPLIES_EXEC */, 1n]) {
      expect(run('personality', [p])).toBe(EPERM);
    }
  });

  it('allows exactly the allowlist, refuses the rest of the table with EPERM and any other number with ENOSYS', () => {
    const ruled = new Set<number>();
    for (const rule of seccompRules) {
      for (const name of rule.syscalls) {
        const n = syscallNumber(arch, name);
        if (n !== undefined) ruled.add(n);
      }
    }
    const allowed = new Set(allowedSyscallNames.map((name) => syscallNumber(arch, name)));
    const known = new Set(syscallNames.map((name) => syscallNumber(arch, name)));
    const counts = { allowed: 0, eperm: 0, enosys: 0 };
    for (let n = 0; n < 2048; n++) {
      if (ruled.has(n)) continue;
      const got = runSeccompProgram(program, { nr: n, arch: auditArch[arch], args: [1n, 2n] });
      if (allowed.has(n)) {
        expect(got, `nr ${n}`).toBe(seccompRet.allow);
        counts.allowed++;
      } else if (known.has(n)) {
        expect(got, `nr ${n}`).toBe(EPERM);
        counts.eperm++;
      } else {
        expect(got, `nr ${n}`).toBe(errnoAction('ENOSYS'));
        counts.enosys++;
      }
    }
    expect(counts.allowed).toBeGreaterThan(arch === 'x64' ? 250 : 200);
    expect(counts.enosys).toBeGreaterThan(1500);
    for (const nr of [0x3fffffff, 0x7fffffff, 0xffffffff]) {
      expect(runSeccompProgram(program, { nr, arch: auditArch[arch] })).toBe(
        arch === 'x64' && nr !== 0x3fffffff ? EPERM : errnoAction('ENOSYS'),
      );
    }
    for (const name of ['read', 'write', 'openat', 'getpid'] as const) {
      expect(run(name, [3n, 0n, 0n])).toBe(seccompRet.allow);
    }
  });

  it('is a valid classic-BPF program: short, every jump in range, every path returning', () => {
    expect(program.length).toBeLessThan(bpfMaxInstructions);
    expect(program[0]).toEqual({ code: bpfOp.ldAbsW, jt: 0, jf: 0, k: 4 });
    program.forEach((insn, pc) => {
      const isCond = (insn.code & 0x07) === 0x05 && insn.code !== bpfOp.ja;
      if (isCond) {
        expect(pc + 1 + Math.max(insn.jt, insn.jf)).toBeLessThan(program.length);
        expect(Math.max(insn.jt, insn.jf)).toBeLessThanOrEqual(255);
      }
    });
    expect(program[program.length - 1]?.code).toBe(bpfOp.retK);
  });
});

describe.each(archs)('seccomp program with allowUnixSocketpair (%s)', (arch) => {
  const program = decodeSockFilters(buildSeccompProgram(arch, { allowUnixSocketpair: true }));
  const call = (name: SyscallName, family: number) =>
    runSeccompProgram(program, {
      nr: syscallNumber(arch, name) ?? -1,
      arch: auditArch[arch],
      args: [BigInt(family), 1n, 0n],
    });

  it('lets AF_UNIX pairs through but still refuses socket(AF_UNIX) and other pair families', () => {
    expect(call('socketpair', AF_UNIX)).toBe(seccompRet.allow);
    expect(call('socketpair', AF_INET)).toBe(seccompRet.allow);
    expect(call('socket', AF_UNIX)).toBe(EAFNOSUPPORT);
    for (const family of [AF_NETLINK, AF_PACKET, 40]) {
      expect(call('socketpair', family)).toBe(EAFNOSUPPORT);
      expect(call('socket', family)).toBe(EAFNOSUPPORT);
    }
  });

  it('keeps every other rule of the default filter', () => {
    const strict = decodeSockFilters(buildSeccompProgram(arch));
    for (let n = 0; n < 1024; n++) {
      if (n === syscallNumber(arch, 'socketpair')) continue;
      for (const args of [[0n], [1n, 0x5412n], [0x10000000n], [0x0040000n]]) {
        const data = { nr: n, arch: auditArch[arch], args };
        expect(runSeccompProgram(program, data)).toBe(runSeccompProgram(strict, data));
      }
    }
  });
});

describe('seccompArchFor', () => {
  it('maps the architectures that have a filter and nothing else', () => {
    expect(seccompArchFor('x64')).toBe('x64');
    expect(seccompArchFor('arm64')).toBe('arm64');
    for (const other of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'x32', 'loong64', '']) {
      expect(seccompArchFor(other)).toBeUndefined();
    }
  });
});
