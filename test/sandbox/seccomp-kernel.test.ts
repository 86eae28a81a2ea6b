/**
 * The filter against the real kernel: bwrap installs it from fd 3 and a Python probe attempts each
 * refused syscall, next to positive controls that must keep working. Every run is compared with
 * the same probe in the same sandbox without the filter, to show the refusals come from it.
 */
import { readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  probeSandboxUnavailable,
  python3Path,
  readableCopy,
  runInBwrap,
  type ProbeRun,
} from '../../main/sandbox/linux/seccomp/bwrap-probe-runner';
import { cloneChecks, rawChecks } from '../../main/sandbox/linux/seccomp/kernel-probe-checks';
import {
  buildSeccompProgram,
  seccompArchFor,
} from '../../main/sandbox/linux/seccomp/seccomp-program';
import { syscallNumber, type SeccompArch } from '../../main/sandbox/linux/seccomp/syscall-numbers';

type Outcome = { ret: number; errno: string | null };
type Results = Record<string, Outcome>;

const arch = seccompArchFor(process.arch);
const requireSandbox = process.env.WARDEN_REQUIRE_SANDBOX === '1';
// Read by the unprivileged test user too, wherever the checkout lives.
const probe = await readableCopy(
  fileURLToPath(new URL('../../main/sandbox/linux/seccomp/kernel-probe.py', import.meta.url)),
);
afterAll(() => rm(dirname(probe), { recursive: true, force: true }));
const python = python3Path();
const isRoot = process.getuid?.() === 0;
// As root, also as an unprivileged user (how a desktop user runs it); otherwise as ourselves.
const testUser = process.env.WARDEN_TEST_USER ?? 'wtest';
const users: { label: string; user: string | undefined }[] = isRoot
  ? [
      { label: 'root', user: undefined },
      { label: testUser, user: testUser },
    ]
  : [{ label: 'the current user', user: undefined }];

/** Library-level checks of kernel-probe.py: errno under the default filter, or 'ok'. */
const libraryChecks: Record<string, string> = {
  'py-socket-unix': 'EAFNOSUPPORT',
  'py-socket-unix-dgram': 'EAFNOSUPPORT',
  'py-socketpair': 'EAFNOSUPPORT',
  'py-socket-netlink': 'EAFNOSUPPORT',
  'py-socket-packet': 'EAFNOSUPPORT',
  'py-asyncio-loop': 'EAFNOSUPPORT', // its self-pipe is socketpair(AF_UNIX)
  'py-socket-inet6': 'ok',
  'py-inet-loopback': 'ok',
  'py-fork': 'ok',
  'py-thread': 'ok', // glibc tries clone3, gets ENOSYS, falls back to clone
  'py-subprocess': 'ok',
  'py-read-file': 'ok',
};

/** Node inside the sandbox: what the sandbox init needs, plus what refusing AF_UNIX costs. */
const nodeProbe = `
const cp = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const code = (e) => (e && e.code) || String(e);
const out = { read: fs.readFileSync('/proc/self/status', 'utf8').includes('Seccomp:\t2') };
out.spawnInherit = cp.spawnSync('true', { stdio: 'inherit' }).status;
const piped = cp.spawnSync('echo', ['hi']);
out.spawnPipe = piped.error ? code(piped.error) : piped.stdout.toString();
const unix = net.connect('/tmp/none.sock');
unix.on('error', (e) => {
  out.unixSocket = code(e);
  const srv = net.createServer((s) => s.end('pong')).listen(0, '127.0.0.1', () => {
    net.connect(srv.address().port, '127.0.0.1').on('data', (d) => {
      out.tcp = d.toString();
      srv.close();
      console.log(JSON.stringify(out));
    });
  });
});
`;

async function unavailable(user: string | undefined): Promise<string | undefined> {
  if (arch === undefined) return `no seccomp filter for ${process.arch}`;
  if (user !== undefined && !(await userExists(user))) return `no user ${user} on this machine`;
  return probeSandboxUnavailable(user);
}
async function userExists(user: string): Promise<boolean> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  return passwd.split('\n').some((line) => line.startsWith(`${user}:`));
}

const reasons = await Promise.all(users.map((u) => unavailable(u.user)));

function probeSpec(a: SeccompArch): string {
  return JSON.stringify({
    raw: rawChecks(a).map((c) => ({ ...c, args: c.args.map(String) })),
    cloneNr: syscallNumber(a, 'clone'),
    cloneFlags: Object.fromEntries(Object.entries(cloneChecks).map(([k, v]) => [k, v.flags])),
  });
}

function parse(run: ProbeRun): Results {
  expect(run.code, `probe failed: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as Results;
}

const said = (o: Outcome | undefined): string => (o === undefined ? 'missing' : (o.errno ?? 'ok'));

describe.each(users.map((u, i) => ({ ...u, reason: reasons[i] })))(
  'seccomp filter in a real bwrap sandbox, as $label',
  ({ user, reason }) => {
    const skip = reason !== undefined && !requireSandbox;
    const name = (title: string): string => (skip ? `${title} (skipped: ${reason})` : title);
    const a = arch ?? 'x64';
    const asUser = user === undefined ? {} : { user };
    const filtered = {} as Results;
    const baseline = {} as Results;
    const relaxed = {} as Results;

    beforeAll(async () => {
      if (reason !== undefined) return;
      const cmd = [python, probe, 'checks', probeSpec(a)];
      const [f, b, r] = await Promise.all([
        runInBwrap(cmd, { ...asUser, program: buildSeccompProgram(a) }),
        runInBwrap(cmd, asUser),
        runInBwrap(cmd, {
          ...asUser,
          program: buildSeccompProgram(a, { allowUnixSocketpair: true }),
        }),
      ]);
      Object.assign(filtered, parse(f));
      Object.assign(baseline, parse(b));
      Object.assign(relaxed, parse(r));
    }, 60_000);

    it.skipIf(skip)(name('refuses each filtered syscall with its errno'), () => {
      if (reason !== undefined) throw new Error(`sandbox required but unavailable: ${reason}`);
      for (const check of rawChecks(a)) {
        const got = filtered[check.name];
        const base = baseline[check.name];
        if (check.expect === 'ALLOWED') {
          // Let through: the kernel answers exactly as it does without the filter.
          expect(said(got), check.name).toBe(said(base));
        } else {
          expect(said(got), check.name).toBe(check.expect);
          if (check.discriminates)
            expect(said(base), `${check.name} unfiltered`).not.toBe(check.expect);
        }
      }
    });

    it.skipIf(skip)(
      name('refuses non-INET sockets and namespace clones, keeps the controls'),
      () => {
        if (reason !== undefined) throw new Error(`sandbox required but unavailable: ${reason}`);
        for (const [check, expected] of Object.entries(libraryChecks)) {
          expect(said(filtered[check]), check).toBe(expected);
          expect(said(baseline[check]), `${check} unfiltered`).toBe(
            check === 'py-socket-packet' ? 'EPERM' : 'ok',
          );
        }
        for (const [check, { expect: expected }] of Object.entries(cloneChecks)) {
          expect(said(filtered[check]), check).toBe(expected === 'ALLOWED' ? 'ok' : expected);
        }
        expect(said(baseline['clone-newuser']), 'clone(CLONE_NEWUSER) unfiltered').toBe('ok');
        const expectedNames = [
          ...rawChecks(a).map((c) => c.name),
          ...Object.keys(libraryChecks),
          ...Object.keys(cloneChecks),
        ];
        expect(Object.keys(filtered).sort()).toEqual(expectedNames.sort());
      },
    );

    it.skipIf(skip)(
      name('allowUnixSocketpair lets AF_UNIX pairs and asyncio work, nothing more'),
      () => {
        if (reason !== undefined) throw new Error(`sandbox required but unavailable: ${reason}`);
        expect(said(relaxed['py-socketpair'])).toBe('ok');
        expect(said(relaxed['py-asyncio-loop'])).toBe('ok');
        for (const check of Object.keys(filtered)) {
          if (check === 'py-socketpair' || check === 'py-asyncio-loop') continue;
          if (check === 'socketpair-unix') {
            expect(said(relaxed[check])).toBe(said(baseline[check])); // EFAULT: reaches the kernel
            continue;
          }
          expect(said(relaxed[check]), check).toBe(said(filtered[check]));
        }
      },
    );

    it.skipIf(skip)(name('runs Node (the sandbox init): files and loopback TCP work'), async () => {
      if (reason !== undefined) throw new Error(`sandbox required but unavailable: ${reason}`);
      const node = [process.execPath, '-e', nodeProbe];
      const [strict, relaxedRun] = await Promise.all([
        runInBwrap(node, { ...asUser, program: buildSeccompProgram(a) }),
        runInBwrap(node, {
          ...asUser,
          program: buildSeccompProgram(a, { allowUnixSocketpair: true }),
        }),
      ]);
      expect(strict.code, strict.stderr).toBe(0);
      expect(JSON.parse(strict.stdout)).toEqual({
        read: true,
        tcp: 'pong',
        spawnInherit: 0,
        spawnPipe: 'EAFNOSUPPORT', // libuv's stdio pipes are socketpair(AF_UNIX)
        unixSocket: 'EAFNOSUPPORT',
      });
      expect(relaxedRun.code, relaxedRun.stderr).toBe(0);
      expect(JSON.parse(relaxedRun.stdout)).toMatchObject({
        spawnPipe: 'hi\n',
        unixSocket: 'EAFNOSUPPORT',
      });
    });

    it.skipIf(skip)(name('kills a process that makes a foreign-architecture syscall'), async () => {
      if (reason !== undefined) throw new Error(`sandbox required but unavailable: ${reason}`);
      // The other architecture's program sees every syscall as foreign: the first one is fatal.
      const other = buildSeccompProgram(a === 'x64' ? 'arm64' : 'x64');
      const killed = await runInBwrap(['/bin/true'], { ...asUser, program: other });
      expect(killed.code).toBe(128 + 31); // SIGSYS, reported by bwrap's init
      if (a !== 'x64') return;
      // The i386 entry (`int 0x80`) on x86-64 carries AUDIT_ARCH_I386.
      const int80 = [python, probe, 'int80'];
      const [f, b] = await Promise.all([
        runInBwrap(int80, { ...asUser, program: buildSeccompProgram(a) }),
        runInBwrap(int80, asUser),
      ]);
      expect(f.stdout).toBe('before\n');
      if (!b.stdout.includes('after')) {
        // This host makes no i386 syscall even without the filter (no ia32 emulation, or a
        // hypervisor that faults `int 0x80`): both die before the kernel runs it, nothing more
        // to see of the filter here.
        expect(b.code).not.toBe(0);
        return;
      }
      expect(f.code).toBe(128 + 31);
      expect(b.code).toBe(0);
    });
  },
);
