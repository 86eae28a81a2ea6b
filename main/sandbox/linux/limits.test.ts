import { describe, expect, it } from 'vitest';
import type { Limits } from '../../../app/policy/policy-schema';
import type { LinuxHostFacts } from './host-facts';
import { cgroupPrefix, limitSupport, planLimits } from './limits';

const facts: LinuxHostFacts = {
  kernel: '6.8.0',
  isRoot: false,
  bwrap: { ok: true, path: '/usr/bin/bwrap', version: '0.8.0' },
  userns: { ok: true, detail: '' },
  seccomp: { ok: true, detail: '' },
  prlimitPath: '/usr/bin/prlimit',
  nprocPerUserns: true,
  cgroup: { pids: null, memory: null, detail: '' },
};
const all: Limits = {
  memoryMb: 1024,
  pids: 32,
  cpuSeconds: 10,
  openFiles: 256,
  wallSeconds: 60,
  bestEffort: [],
};

describe('planLimits', () => {
  it('maps every limit to rlimits and the wall timer without cgroups', () => {
    const r = planLimits(all, facts, 'tag');
    expect(r.ok && r.value).toMatchObject({
      prlimitArgs: ['--as=1073741824', '--nproc=32', '--cpu=10:11', '--nofile=256'],
      cgroups: [],
      wallTimeMs: 60_000,
    });
    expect(r.ok && Object.keys(r.value.enforced).sort()).toEqual(
      ['cpuSeconds', 'memoryMb', 'openFiles', 'pids', 'wallSeconds'].sort(),
    );
  });

  it('uses writable cgroups for memory and pids, one directory per hierarchy', () => {
    const withCgroups: LinuxHostFacts = {
      ...facts,
      isRoot: true,
      cgroup: {
        pids: { dir: '/sys/fs/cgroup/pids/', version: 1 },
        memory: { dir: '/sys/fs/cgroup/memory/x', version: 1 },
        detail: '',
      },
    };
    const r = planLimits({ memoryMb: 100, pids: 8, bestEffort: [] }, withCgroups, 't1');
    expect(r.ok && r.value.cgroups).toEqual([
      {
        dir: '/sys/fs/cgroup/memory/x/warden-t1',
        settings: [
          ['memory.limit_in_bytes', '104857600', true],
          ['memory.memsw.limit_in_bytes', '104857600', false],
        ],
      },
      { dir: '/sys/fs/cgroup/pids/warden-t1', settings: [['pids.max', '8', true]] },
    ]);
    expect(r.ok && r.value.prlimitArgs).toEqual([]);
  });

  it('writes cgroup v2 files into one directory when both controllers share it', () => {
    const parent = { dir: '/sys/fs/cgroup/user.slice/warden.service', version: 2 as const };
    const v2: LinuxHostFacts = { ...facts, cgroup: { pids: parent, memory: parent, detail: '' } };
    const r = planLimits({ memoryMb: 64, pids: 8, bestEffort: [] }, v2, 't2');
    expect(r.ok && r.value.cgroups).toEqual([
      {
        dir: '/sys/fs/cgroup/user.slice/warden.service/warden-t2',
        settings: [
          ['memory.max', '67108864', true],
          ['memory.swap.max', '0', false],
          ['pids.max', '8', true],
        ],
      },
    ]);
  });

  it('refuses a limit root cannot have enforced, unless it is best-effort', () => {
    const root = { ...facts, isRoot: true };
    const r = planLimits({ pids: 8, bestEffort: [] }, root, 't');
    expect(!r.ok && r.error.kind).toBe('limit-unsupported');
    const lenient = planLimits({ pids: 8, bestEffort: ['pids'] }, root, 't');
    expect(lenient.ok && lenient.value.unenforced.pids).toContain('RLIMIT_NPROC');
    expect(limitSupport(root).pids.enforced).toBe(false);
  });

  it('quotes cgroup paths in the shell prefix and joins before exec', () => {
    const prefix = cgroupPrefix([{ dir: "/cg/it's", settings: [['pids.max', '4', true]] }]);
    expect(prefix.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(prefix[2]).toContain(`mkdir '/cg/it'\\''s'`);
    expect(prefix[2]).toContain(`echo $$ > '/cg/it'\\''s/cgroup.procs'`);
    expect(prefix[2]).toMatch(/exec "\$@"$/);
  });
});
