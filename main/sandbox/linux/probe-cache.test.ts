import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LinuxHostFacts } from './host-facts';
import { cachedHostFacts } from './probe-cache';
import { usableHostFacts } from '../../../test/helpers/host-facts';

const usable: LinuxHostFacts = usableHostFacts();
const blocked: LinuxHostFacts = {
  ...usable,
  userns: { ok: false, detail: 'blocked', remedy: 'sysctl' },
};

let base: string;
let bwrap: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'warden-probe-cache-'));
  bwrap = join(base, 'bwrap');
  await writeFile(bwrap, '#!/bin/sh\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function counting(facts: LinuxHostFacts) {
  const probe = Object.assign(
    () => {
      probe.calls++;
      return Promise.resolve(structuredClone(facts));
    },
    { calls: 0 },
  );
  return probe;
}

describe('cached host facts', () => {
  it('reuses a recent probe that allowed sandboxing, and probes again when it expires', async () => {
    let now = 0;
    const dir = join(base, 'cache');
    const probe = counting(usable);
    const options = {
      dir,
      now: () => now,
      ttlMs: 1000,
      cgroups: () => Promise.resolve(usable.cgroup),
    };
    expect(await cachedHostFacts(bwrap, probe, options)).toEqual(usable);
    expect(await cachedHostFacts(bwrap, probe, options)).toEqual(usable);
    expect(probe.calls).toBe(1);
    now = 2000;
    await cachedHostFacts(bwrap, probe, options);
    expect(probe.calls).toBe(2);
  });

  it("finds this process's cgroups afresh even when the rest comes from the cache", async () => {
    const dir = join(base, 'cache');
    const probe = counting(usable);
    await cachedHostFacts(bwrap, probe, { dir });
    // Another process, in another cgroup, reads the same entry.
    const own = {
      pids: { dir: '/sys/fs/cgroup/pids/elsewhere', version: 1 as const },
      memory: null,
      detail: 'other',
    };
    const facts = await cachedHostFacts(bwrap, probe, { dir, cgroups: () => Promise.resolve(own) });
    expect(probe.calls).toBe(1);
    expect(facts.cgroup).toEqual(own);
    expect(facts.bwrap).toEqual(usable.bwrap);
  });

  it('probes again when bubblewrap changes', async () => {
    const dir = join(base, 'cache');
    const probe = counting(usable);
    await cachedHostFacts(bwrap, probe, { dir });
    await writeFile(bwrap, '#!/bin/sh\n# a new version\n');
    await cachedHostFacts(bwrap, probe, { dir });
    expect(probe.calls).toBe(2);
  });

  it('never keeps facts that refuse sandboxing', async () => {
    const dir = join(base, 'cache');
    const probe = counting(blocked);
    await cachedHostFacts(bwrap, probe, { dir });
    await cachedHostFacts(bwrap, probe, { dir });
    expect(probe.calls).toBe(2);
  });

  it('ignores a cache folder others may write', async () => {
    const dir = join(base, 'cache');
    const probe = counting(usable);
    await cachedHostFacts(bwrap, probe, { dir });
    await chmod(dir, 0o777);
    await cachedHostFacts(bwrap, probe, { dir });
    expect(probe.calls).toBe(2);
  });
});
