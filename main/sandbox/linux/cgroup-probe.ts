/**
 * Finds cgroups this user may create children in, for whole-sandbox memory and process limits:
 * a cgroup v2 subtree with the controllers delegated, or writable cgroup v1 hierarchies (root).
 */
import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CgroupParent, LinuxHostFacts } from './host-facts';

// The probe's few calls are synchronous: it runs before a process's first launch, where each
// thread-pool round trip would delay the spawn more than the call itself takes.
function readTrim(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function writableCgroupParent(dir: string, version: 1 | 2): CgroupParent | null {
  const probe = join(dir, `warden-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return { dir, version };
  } catch {
    return null;
  }
}

/**
 * Removes empty cgroups left by a Warden that died before it could (their name carries its pid).
 * A cgroup that still holds a process cannot be removed, so a live sandbox is never touched.
 */
export async function sweepStaleCgroups(parent: CgroupParent | null): Promise<void> {
  if (!parent) return;
  const names = await readdir(parent.dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = /^warden-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch {
      await rmdir(join(parent.dir, name)).catch(() => undefined);
    }
  }
}

/** Finds cgroup parents for pids and memory that this user may create children in. */
export function probeCgroups(): Promise<LinuxHostFacts['cgroup']> {
  return Promise.resolve(findCgroups());
}

function findCgroups(): LinuxHostFacts['cgroup'] {
  const self = readTrim('/proc/self/cgroup') ?? '';
  const lines = self.split('\n').map((l) => l.split(':'));
  const v2 = lines.find((l) => l[0] === '0')?.[2];
  const v2Root = '/sys/fs/cgroup';
  const v2Controllers = readTrim(join(v2Root, 'cgroup.controllers'));
  if (v2 !== undefined && v2Controllers !== undefined) {
    const dir = join(v2Root, v2);
    const enabled = readTrim(join(dir, 'cgroup.subtree_control')) ?? '';
    const parent = writableCgroupParent(dir, 2);
    if (parent) {
      return {
        pids: enabled.includes('pids') ? parent : null,
        memory: enabled.includes('memory') ? parent : null,
        detail: `cgroup v2 at ${dir} (controllers delegated: ${enabled || 'none'})`,
      };
    }
  }
  const v1 = (controller: string) => {
    const path = lines.find((l) => (l[1] ?? '').split(',').includes(controller))?.[2];
    if (path === undefined) return null;
    return writableCgroupParent(join('/sys/fs/cgroup', controller, path), 1);
  };
  const pids = v1('pids');
  const memory = v1('memory');
  return {
    pids,
    memory,
    detail:
      pids || memory
        ? `cgroup v1 controllers writable: ${[pids && 'pids', memory && 'memory'].filter(Boolean).join(', ')}`
        : 'no cgroup (v2 with delegated controllers, or writable v1) is available to this user',
  };
}
