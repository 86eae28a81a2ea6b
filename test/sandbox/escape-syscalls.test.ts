/**
 * Escape suite, syscalls outside the allowlist: through the real backend (`warden exec`), a
 * Python ctypes probe calls each syscall that Docker or Flatpak refuse, and numbers newer than
 * the syscall table, and must see the filter's errno. The same probe on the host, unfiltered,
 * gets the kernel's own answer, which shows the refusal came from the filter.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawChecks } from '../../main/sandbox/linux/seccomp/kernel-probe-checks';
import { seccompArchFor } from '../../main/sandbox/linux/seccomp/seccomp-program';
import { type Fixture, makeFixture, sandboxStatus, wardenExec } from './harness';

const status = await sandboxStatus();
const arch = seccompArchFor(process.arch) ?? 'x64';
const PYTHON = '/usr/bin/python3';

const refused = [
  ...['modify_ldt', 'kcmp', 'move_pages', 'migrate_pages', 'mbind', 'set_mempolicy'],
  ...['memfd_secret', 'process_madvise', 'statmount', 'listmount', 'file_getattr'],
  ...['unknown-470', 'unknown-1000'],
];
const checks = rawChecks(arch).filter((c) => refused.includes(c.name));

const PROBE = `
import ctypes, errno, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for c in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(c["nr"]), *[ctypes.c_ulong(int(a) & (2**64 - 1)) for a in c["args"]])
    out[c["name"]] = errno.errorcode.get(ctypes.get_errno(), "?") if ret < 0 else "ok"
print(json.dumps(out))
`;

describe.skipIf(!status.usable)('escape: syscalls outside the allowlist', () => {
  let f: Fixture;
  let script: string;
  const spec = JSON.stringify(checks.map((c) => ({ ...c, args: c.args.map(String) })));
  beforeAll(async () => {
    f = await makeFixture();
    script = join(f.ro, 'probe.py');
    await writeFile(script, PROBE);
  });
  afterAll(() => f.cleanup());

  it('refuses each one inside the sandbox; the host kernel answers otherwise', async () => {
    expect(checks.length).toBeGreaterThanOrEqual(arch === 'x64' ? 13 : 12);
    const inside = await wardenExec(['--ro', f.ro], [PYTHON, script, spec], f.hostEnv);
    expect(inside.code, inside.stderr).toBe(0);
    const got = JSON.parse(inside.stdout) as Record<string, string>;
    const host = JSON.parse(
      (await promisify(execFile)(PYTHON, ['-c', PROBE, spec])).stdout,
    ) as Record<string, string>;
    for (const check of checks) {
      expect(got[check.name], check.name).toBe(check.expect);
      if (check.discriminates)
        expect(host[check.name], `${check.name} on the host`).not.toBe(check.expect);
    }
  });
});
