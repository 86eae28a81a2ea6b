/**
 * Hidden-path search benchmark: how long building a sandbox spends finding the hidden paths
 * (`~/…` entries and `.env`/`.env.*` names at any depth) inside a declared root, for synthetic
 * trees of growing size and for the project's own node_modules: the full walk against the previous
 * walk (one folder at a time through opendir), and a warm search (records of the previous search
 * kept on disk, taken in by a new cache as a new process would) against the full walk, on the same
 * trees in the same process. For the project's node_modules also: a search from the records kept in
 * memory (a running core's later launches), a search in a new process from the record file against
 * a full walk in a new process (the standalone `warden connect`: wall and CPU time, alternating),
 * and what writing the records after a launch costs the main thread. Run:
 * `node bench/run.mjs hidden-paths-bench`. Prints measured figures only; the trees and records
 * live in a temp dir that is removed afterwards.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, opendir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HIDDEN_PATHS as HIDDEN, nameMatcher } from '../app/policy/guards';
import { findHiddenTargets } from '../main/sandbox/hidden-paths';
import { hiddenPathsCache, hiddenPathsCacheDir } from '../main/sandbox/hidden-paths-cache';
import { serializeFolderRecords } from '../main/sandbox/hidden-paths-record';
import { benchFlags } from './bench-flags';

/** The previous search, as a baseline: one folder at a time, iterating opendir entry by entry. */
async function opendirWalk(root: string): Promise<number> {
  const matches = nameMatcher(HIDDEN.filter((p) => !p.includes('/')));
  let found = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for await (const e of await opendir(dir)) {
      if (matches(e.name)) found++;
      else if (e.isDirectory()) pending.push(join(dir, e.name));
    }
  }
  return found;
}

/** A tree of `dirs` folders with `files` files each, one `.env` per 100 folders. */
async function makeTree(root: string, dirs: number, files: number): Promise<void> {
  await mkdir(join(root, '.ssh'), { recursive: true });
  await writeFile(join(root, '.ssh', 'id_ed25519'), 'key');
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg-${Math.floor(d / 50)}`, `dir-${d}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: files }, (_, f) => writeFile(join(dir, `f${f}.js`), '')),
    );
    if (d % 100 === 0) await writeFile(join(dir, '.env'), 'X=1');
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const RUNS = 7;

/**
 * Milliseconds one search of `root` takes (with records from `state` when given, read by a new
 * cache as a new process would), how many paths it found, and how long writing its records took.
 */
async function timed(root: string, state?: string): Promise<[number, number, number]> {
  const cache = state ? hiddenPathsCache({ dir: hiddenPathsCacheDir(state) }) : undefined;
  const start = performance.now();
  const r = await findHiddenTargets([root], HIDDEN, root, undefined, { cache });
  const ms = performance.now() - start;
  if (!r.ok) throw new Error(r.error.message);
  const written = performance.now();
  cache?.flush();
  return [ms, r.value.length, performance.now() - written];
}

/** Warm search against the full walk, alternating, after one search that writes the records. */
async function warmRow(label: string, root: string, state: string): Promise<void> {
  const [first, , write] = await timed(root, state);
  const full: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    full.push((await timed(root))[0]);
    warm.push((await timed(root, state))[0]);
  }
  console.log(
    `${label}: warm search median ${median(warm).toFixed(1)} ms, full walk ${median(full).toFixed(1)} ms ` +
      `(${(median(full) / median(warm)).toFixed(1)}x); first search (no records) ${first.toFixed(1)} ms, then writing them ${write.toFixed(1)} ms`,
  );
}

/** One search in this (new) process, with the records in `state` if given: wall and CPU ms. */
async function childSearch(root: string, state: string | undefined): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const cache = state ? hiddenPathsCache({ dir: hiddenPathsCacheDir(state) }) : undefined;
  const r = await findHiddenTargets([root], HIDDEN, root, undefined, { cache });
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (!r.ok) throw new Error(r.error.message);
  console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000 }));
}

/** A search in a new process (this bundle again), as the standalone `warden connect` makes it. */
function inNewProcess(root: string, state?: string): { wall: number; cpu: number } {
  const args = [process.argv[1]!, '--child', root, ...(state ? [state] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as {
    wall: number;
    cpu: number;
  };
}

/** The node_modules rows: records in memory, a new process, and the write after a launch. */
async function checkoutRows(root: string, state: string): Promise<void> {
  const memory = hiddenPathsCache({ dir: hiddenPathsCacheDir(state) });
  await findHiddenTargets([root], HIDDEN, root, undefined, { cache: memory });
  const inMemory: number[] = [];
  const full: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    full.push((await timed(root))[0]);
    const start = performance.now();
    await findHiddenTargets([root], HIDDEN, root, undefined, { cache: memory });
    inMemory.push(performance.now() - start);
  }
  console.log(
    `node_modules, records in memory (a running core): median ${median(inMemory).toFixed(1)} ms, full walk ${median(full).toFixed(1)} ms`,
  );
  const records = await memory.load(root, ['.env', '.env.*']);
  const serialize: number[] = [];
  const write: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let start = performance.now();
    serializeFolderRecords(root, ['.env', '.env.*'], records);
    serialize.push(performance.now() - start);
    memory.store(root, ['.env', '.env.*'], records);
    start = performance.now();
    await memory.write();
    write.push(performance.now() - start);
  }
  console.log(
    `node_modules, writing the records after a launch (${records.size} folders): ${median(write).toFixed(1)} ms in all, ` +
      `of which ${median(serialize).toFixed(1)} ms on the main thread (the text), the rest asynchronous file calls`,
  );
  const warm: { wall: number; cpu: number }[] = [];
  const cold: { wall: number; cpu: number }[] = [];
  for (let run = 0; run < 2 * RUNS; run++) {
    warm.push(inNewProcess(root, state));
    cold.push(inNewProcess(root));
  }
  const wall = (xs: typeof warm) => median(xs.map((x) => x.wall)).toFixed(1);
  const cpu = (xs: typeof warm) => median(xs.map((x) => x.cpu)).toFixed(1);
  console.log(
    `node_modules, a new process (${2 * RUNS} alternating): from the record file ${wall(warm)} ms (CPU ${cpu(warm)} ms), ` +
      `full walk ${wall(cold)} ms (CPU ${cpu(cold)} ms)`,
  );
}

if (process.argv[2] === '--child') {
  await childSearch(process.argv[3]!, process.argv[4]);
  process.exit(0);
}
benchFlags(
  'hidden-paths-bench',
  'How long building a sandbox spends finding the hidden paths inside a declared root.',
  {},
);

const base = await mkdtemp(join(tmpdir(), 'warden-hidden-bench-'));
try {
  const trees: [string, string][] = [];
  for (const [dirs, files] of [
    [100, 10],
    [1000, 10],
    [2000, 25],
    [300, 1000],
  ] as const) {
    const root = join(base, `tree-${dirs}-${files}`);
    await makeTree(root, dirs, files);
    // The two searches alternate, so that load from elsewhere falls on both alike.
    const times: number[] = [];
    const baseline: number[] = [];
    let found = 0;
    for (let run = 0; run < RUNS; run++) {
      const [ms, n] = await timed(root);
      times.push(ms);
      found = n;
      const start = performance.now();
      await opendirWalk(root);
      baseline.push(performance.now() - start);
    }
    const entries = dirs * (files + 1) + Math.ceil(dirs / 50);
    const ratio = median(baseline) / median(times);
    console.log(
      `~${entries} entries: median ${median(times).toFixed(1)} ms over ${RUNS} runs (${found} hidden found); ` +
        `opendir walk ${median(baseline).toFixed(1)} ms, ${ratio.toFixed(1)}x slower`,
    );
    trees.push([`~${entries} entries`, root]);
  }
  // Folders changed less than 2 s before a search are not recorded: let the new trees age.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  for (const [label, root] of trees) await warmRow(label, root, `${root}-state`);
  await warmRow(
    'node_modules of this checkout',
    join(process.cwd(), 'node_modules'),
    join(base, 'state-nm'),
  );
  await checkoutRows(join(process.cwd(), 'node_modules'), join(base, 'state-nm'));
} finally {
  await rm(base, { recursive: true, force: true });
}
