import { describe, expect, it } from 'vitest';
import type { Limits } from '../../../app/policy/policy-schema';
import type { LinuxHostFacts } from './host-facts';
import { cgroupPrefix, limitSupport, planLimits, scopePrefix } from './limits';

const facts: LinuxHostFacts = {
  kernel: '6.8.0',
  isRoot: false,
  bwrap: { ok: true, path: '/usr/bin/bwrap', version: '0.8.0' },
  userns: { ok: true, detail: '' },
  seccomp: { ok: true, detail: '' },
  prlimitPath: '/usr/bin/prlimit',
  nprocPerUserns: true,
  systemdScope: { ok: false, detail: '', remedy: '' },
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

  it('quotes cgroup paths in the shell prefix and joins before exec, starting no process', () => {
    const prefix = cgroupPrefix([{ dir: "/cg/it's", settings: [['pids.max', '4', true]] }]);
    expect(prefix.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    // The spawner creates the folder (plan.createDirs): only built-ins run before bubblewrap.
    expect(prefix[2]).not.toContain('mkdir');
    expect(prefix[2]).toContain(`echo '4' > '/cg/it'\\''s/pids.max'`);
    expect(prefix[2]).toContain(`echo $$ > '/cg/it'\\''s/cgroup.procs'`);
    expect(prefix[2]).toMatch(/exec "\$@"$/);
  });
});

describe('memory held per process, by a scope, and by default', () => {
  const none: Limits = { bestEffort: [] };
  const scope: LinuxHostFacts['systemdScope'] = {
    ok: true,
    detail: '',
    systemdRun: '/usr/bin/systemd-run',
    runtimeDir: '/run/user/1000',
  };

  it('per process: RLIMIT_AS, tmpfs sized to the limit, memfd_create and shmget refused', () => {
    const r = planLimits({ memoryMb: 256, bestEffort: [] }, facts, 't');
    expect(r.ok && r.value).toMatchObject({
      prlimitArgs: expect.arrayContaining(['--as=268435456']) as string[],
      tmpfsBytes: 256 * 1024 * 1024,
      refuseUncountedMemory: true,
      // Each thread's own malloc arena would reserve 64 MB of the limit.
      envDefaults: { MALLOC_ARENA_MAX: '1' },
    });
  });

  it('refuses a declared memory limit where bubblewrap cannot size its tmpfs mounts', () => {
    const old = { ...facts, bwrap: { ok: true as const, path: '/b', version: '0.6.1' } };
    const r = planLimits({ memoryMb: 256, bestEffort: [] }, old, 't');
    expect(!r.ok && r.error).toMatchObject({ kind: 'limit-unsupported' });
    expect(!r.ok && r.error.message).toContain('tmpfs');
  });

  it('uses a systemd user scope where no cgroup is writable, for the whole sandbox', () => {
    const r = planLimits(
      { memoryMb: 512, pids: 64, bestEffort: [] },
      { ...facts, systemdScope: scope },
      't',
    );
    expect(r.ok && r.value).toMatchObject({
      scopeProperties: ['MemoryMax=536870912', 'MemorySwapMax=0', 'TasksMax=64'],
      prlimitArgs: [],
      cgroups: [],
      refuseUncountedMemory: false,
      envDefaults: {},
    });
    expect(scopePrefix(scope, r.ok ? r.value.scopeProperties : [])).toEqual([
      '/usr/bin/env',
      'XDG_RUNTIME_DIR=/run/user/1000',
      '/usr/bin/systemd-run',
      '--user',
      '--scope',
      '--quiet',
      '--collect',
      ...['-p', 'MemoryMax=536870912', '-p', 'MemorySwapMax=0', '-p', 'TasksMax=64'],
      '--',
    ]);
    expect(limitSupport(facts).memoryMb).toMatchObject({ enforced: true, partial: true });
    expect(limitSupport({ ...facts, systemdScope: scope }).memoryMb.partial).toBeUndefined();
    expect(limitSupport({ ...facts, systemdScope: scope }).memoryMb.how).toContain(
      'systemd user scope',
    );
  });

  it('applies the defaults, best-effort: default memory only for the whole sandbox', () => {
    const perProcess = planLimits(none, facts, 't');
    expect(perProcess.ok && perProcess.value).toMatchObject({
      prlimitArgs: ['--nproc=256'],
      refuseUncountedMemory: false,
      unenforced: { memoryMb: expect.stringContaining('default 1024 not applied') as string },
    });
    const parent = { dir: '/sys/fs/cgroup/w', version: 2 as const };
    const cg = planLimits(
      none,
      { ...facts, cgroup: { pids: parent, memory: parent, detail: '' } },
      't',
    );
    expect(cg.ok && cg.value.cgroups[0]?.settings).toEqual(
      expect.arrayContaining([
        ['memory.max', String(1024 * 1024 * 1024), true],
        ['pids.max', '256', true],
      ]),
    );
    expect(cg.ok && cg.value.enforced.memoryMb).toMatch(/^default 1024: cgroup v2/);
    // Root without a pids cgroup: the default is noted, the launch goes ahead.
    const root = planLimits(none, { ...facts, isRoot: true }, 't');
    expect(root.ok && root.value.unenforced.pids).toMatch(/^default 256 not applied/);
  });
});
