/**
 * Host facts remembered for a few minutes across Warden processes, so that each one-shot
 * `warden exec` or `warden connect` does not try bubblewrap afresh before its launch. Only facts
 * that allow sandboxing are kept, keyed by the bwrap binary, the kernel and the user; a stale
 * entry can only make a launch fail (bwrap refuses), never run anything less confined.
 * The cgroups a launch may create belong to this process (its own cgroup is their parent), not
 * to the host, so they are found afresh on every use. `warden doctor` always probes afresh.
 */
import { lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../../app/audit/canonical-json';
import { writeFileAtomic } from '../../config/atomic-write';
import { probeCgroups } from './cgroup-probe';
import { type LinuxHostFacts, sandboxUsable } from './host-facts';

export interface ProbeCacheOptions {
  dir?: string;
  ttlMs?: number;
  now?: () => number;
  /** Finds this process's cgroup parents (default: probeCgroups). */
  cgroups?: () => Promise<LinuxHostFacts['cgroup']>;
}

// Reading the cache is synchronous: a few calls on small files before a process's first launch,
// where each thread-pool round trip would delay the spawn more than the call itself takes.
function privateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // Checked below.
  }
  const info = lstatSync(dir, { throwIfNoEntry: false });
  // Someone else's folder, or one others may write, could hold forged facts: not used.
  return (
    !!info && info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o077) === 0
  );
}

/** The cache file's text; an empty object when there is none. */
function cachedText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '{}';
  }
}

function cacheKey(bwrapPath: string): string {
  const s = statSync(bwrapPath, { throwIfNoEntry: false });
  return (
    canonicalJson({
      // Bumped when LinuxHostFacts gains a field, so that older entries are probed afresh.
      facts: 2,
      bwrapPath,
      bwrap: s ? { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs } : null,
      kernel: release(),
      uid: process.getuid?.(),
      arch: process.arch,
    }) ?? ''
  );
}

/** The host facts, from a fresh probe or from a recent one that allowed sandboxing. */
export async function cachedHostFacts(
  bwrapPath: string,
  probe: (bwrapPath: string) => Promise<LinuxHostFacts>,
  options: ProbeCacheOptions = {},
): Promise<LinuxHostFacts> {
  const dir = options.dir ?? join(tmpdir(), `mcp-warden-${process.getuid?.() ?? 'user'}`);
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? 5 * 60_000;
  const file = join(dir, 'host-facts.json');
  try {
    if (!privateDir(dir)) return await probe(bwrapPath);
    const key = cacheKey(bwrapPath);
    const cached = JSON.parse(cachedText(file)) as {
      key?: string;
      at?: number;
      facts?: LinuxHostFacts;
    };
    if (
      cached.key === key &&
      typeof cached.at === 'number' &&
      now() - cached.at < ttl &&
      cached.facts
    ) {
      return { ...cached.facts, cgroup: await (options.cgroups ?? probeCgroups)() };
    }
    const facts = await probe(bwrapPath);
    if (sandboxUsable(facts))
      await writeFileAtomic(file, JSON.stringify({ key, at: now(), facts }));
    return facts;
  } catch {
    return probe(bwrapPath);
  }
}
