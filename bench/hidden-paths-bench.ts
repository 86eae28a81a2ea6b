/**
 * Hidden-path search benchmark: how long building a sandbox spends finding the hidden paths
 * (`~/…` entries and `.env`/`.env.*` names at any depth) inside a declared root, for synthetic
 * trees of growing size, against the previous walk (one folder at a time through opendir) on the
 * same trees in the same process. Run: `node bench/run.mjs hidden-paths-bench`. Prints measured figures
 * only; the trees live in a temp dir that is removed afterwards.
 */
import { mkdir, mkdtemp, opendir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HIDDEN_PATHS as HIDDEN, nameMatcher } from '../app/policy/guards';
import { findHiddenTargets } from '../main/sandbox/hidden-paths';

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

const base = await mkdtemp(join(tmpdir(), 'warden-hidden-bench-'));
try {
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
    for (let run = 0; run < 7; run++) {
      let start = performance.now();
      const r = await findHiddenTargets([root], HIDDEN, root);
      times.push(performance.now() - start);
      if (!r.ok) throw new Error(r.error.message);
      found = r.value.length;
      start = performance.now();
      await opendirWalk(root);
      baseline.push(performance.now() - start);
    }
    const entries = dirs * (files + 1) + Math.ceil(dirs / 50);
    const ratio = median(baseline) / median(times);
    console.log(
      `~${entries} entries: median ${median(times).toFixed(1)} ms over 7 runs (${found} hidden found); ` +
        `opendir walk ${median(baseline).toFixed(1)} ms, ${ratio.toFixed(1)}x slower`,
    );
  }
} finally {
  await rm(base, { recursive: true, force: true });
}
