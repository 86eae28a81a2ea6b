import {
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { hiddenPathsCache } from './hidden-paths-cache';
import { UNUSED_MS, markUsed, sweepHiddenPathsCache, sweptMarker } from './hidden-paths-sweep';

const DAY = 24 * 3600 * 1000;
let base: string;
let dir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'warden-sweep-'));
  dir = join(base, 'cache', 'hidden-paths');
  await mkdir(join(dir, 'ahead'), { recursive: true, mode: 0o700 });
});
afterEach(() => rm(base, { recursive: true, force: true }));

/** Writes `name` in the cache folder, last used `ageMs` ago. */
async function file(name: string, ageMs: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, '');
  await markUsed([path], Date.now() - ageMs);
  return path;
}

const names = async () => [
  ...(await readdir(dir)).filter((n) => n !== 'ahead').sort(),
  ...(await readdir(join(dir, 'ahead'))).map((n) => `ahead/${n}`).sort(),
];

describe('sweepHiddenPathsCache', () => {
  it('removes what no launch has used for 30 days, and nothing else', async () => {
    const old = UNUSED_MS + DAY;
    await file('0123456789abcdef0123456789abcdef.json', old);
    await file('0123456789abcdef0123456789abcdef.json.tmp-42-beef', old);
    await file('ahead/fs.folders', old);
    await file('ahead/fs.settled', old);
    await file('ahead/fs.settled.tmp-42-beef', old);
    await file('fedcba9876543210fedcba9876543210.json', UNUSED_MS - DAY);
    await file('ahead/memory.folders', DAY);
    // Not the cache's own: the check ahead's outputs (swept on their own) and anything else.
    await file('ahead/4242', old);
    await file('notes.txt', old);
    await mkdir(join(dir, 'abcdefabcdefabcdefabcdefabcdefab.json'));
    await utimes(join(dir, 'abcdefabcdefabcdefabcdefabcdefab.json'), 0, 0);
    const removed = await sweepHiddenPathsCache(dir, Date.now());
    expect(removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual([
      '0123456789abcdef0123456789abcdef.json',
      '0123456789abcdef0123456789abcdef.json.tmp-42-beef',
      'ahead/fs.folders',
      'ahead/fs.settled',
      'ahead/fs.settled.tmp-42-beef',
    ]);
    expect(await names()).toEqual([
      'abcdefabcdefabcdefabcdefabcdefab.json',
      'fedcba9876543210fedcba9876543210.json',
      'notes.txt',
      'ahead/4242',
      'ahead/memory.folders',
    ]);
  });

  it('sweeps at most once a day', async () => {
    await sweepHiddenPathsCache(dir, Date.now());
    expect((await readdir(join(dir, '..'))).sort()).toEqual(['hidden-paths', 'hidden-paths.swept']);
    const record = await file('0123456789abcdef0123456789abcdef.json', UNUSED_MS + DAY);
    expect(await sweepHiddenPathsCache(dir, Date.now())).toEqual([]);
    expect(await sweepHiddenPathsCache(dir, Date.now() + DAY + 1000)).toEqual([record]);
  });

  it('follows no link: neither the marker nor a record in the folder', async () => {
    const target = join(base, 'not-the-cache');
    await writeFile(target, 'KEEP');
    await markUsed([target], Date.now() - UNUSED_MS - DAY);
    const before = (await stat(target)).mtimeMs;
    await symlink(target, sweptMarker(dir));
    await symlink(target, join(dir, '0123456789abcdef0123456789abcdef.json'));
    expect(await sweepHiddenPathsCache(dir, Date.now())).toEqual([]);
    expect(await readFile(target, 'utf8')).toBe('KEEP');
    expect((await stat(target)).mtimeMs).toBe(before);
  });
});

describe('the cache marks what a search used', () => {
  it('keeps the records a launch read, and sweeps those of a root no launch searches', async () => {
    const root = join(base, 'root');
    await mkdir(join(root, 'a'), { recursive: true });
    await writeFile(join(root, 'a', '.env'), 'S=1');
    const search = async () => {
      const cache = hiddenPathsCache({ dir, now: () => Date.now() + 10_000 });
      const r = await findHiddenTargets([root], ['.env'], undefined, undefined, { cache });
      await cache.write();
      expect(r.ok && r.value.map((t) => t.path)).toEqual([join(root, 'a', '.env')]);
    };
    await search();
    const [record] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    expect(record).toBeDefined();
    const gone = await file('0123456789abcdef0123456789abcdef.json', UNUSED_MS + DAY);
    await markUsed([join(dir, record!)], Date.now() - UNUSED_MS - DAY);
    await rm(sweptMarker(dir));
    await search();
    expect(await readdir(dir)).toContain(record);
    expect(await readdir(dir)).not.toContain(gone.slice(dir.length + 1));
  });
});
