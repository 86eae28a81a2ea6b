/**
 * The hidden-path search with records of the previous search: an unchanged tree is not read
 * again, and every change a server could make to hide a `.env` from the next search (a new file,
 * a new folder, a rename, a folder swapped for a symlink, an mtime set back) is still found. The
 * clock is faked so that the tree just built counts as old enough to be trusted.
 */
import * as fs from 'node:fs';
import { mkdir, mkdtemp, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { type HiddenPathsCache, hiddenPathsCache } from './hidden-paths-cache';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, readdirSync: vi.fn(real.readdirSync) };
});
const readdirCalls = () => vi.mocked(fs.readdirSync).mock.calls.length;

const HIDDEN = ['.env', '.env.*'];
let base: string;
let root: string;
let outside: string;
/** A clock far enough ahead that a folder changed just now is already trusted. */
const ahead = () => Date.now() + 10_000;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'warden-hidden-cache-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  for (let i = 0; i < 6; i++)
    await mkdir(join(root, `pkg-${i}`, 'lib', 'deep'), { recursive: true });
  await writeFile(join(root, 'pkg-2', 'lib', '.env'), 'S=1');
  await mkdir(outside);
  await writeFile(join(outside, '.env'), 'S=2');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

async function search(cache: HiddenPathsCache | undefined, maxEntries?: number) {
  const r = await findHiddenTargets([root], HIDDEN, undefined, maxEntries, { cache });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.map((t) => `${t.path}${t.directory ? '/' : ''}`).sort();
}

/** A warm search finds exactly what a search without records finds. */
async function expectSameAsFresh(cache: HiddenPathsCache) {
  expect(await search(cache)).toEqual(await search(undefined));
}

describe('hidden-path search records', () => {
  it('does not read an unchanged tree again, and finds the same', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    const cold = await search(cache);
    expect(cold).toEqual([join(root, 'pkg-2', 'lib', '.env')]);
    const before = readdirCalls();
    expect(await search(cache)).toEqual(cold);
    expect(readdirCalls()).toBe(before);
  });

  it('uses a trusted record rather than the folder (so records must be trustworthy)', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    const known = await cache.load(root, HIDDEN);
    const lib = join(root, 'pkg-2', 'lib');
    const forged = new Map(known);
    forged.set(lib, { ...known.get(lib)!, matches: [] });
    cache.store(root, HIDDEN, forged);
    expect(await search(cache)).toEqual([]);
  });

  it('finds a .env added to an existing deep folder, or in a new folder', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    await writeFile(join(root, 'pkg-4', 'lib', 'deep', '.env.local'), 'S=3');
    await mkdir(join(root, 'pkg-5', 'lib', 'deep', 'new'));
    await writeFile(join(root, 'pkg-5', 'lib', 'deep', 'new', '.env'), 'S=4');
    expect(await search(cache)).toContain(join(root, 'pkg-4', 'lib', 'deep', '.env.local'));
    await expectSameAsFresh(cache);
  });

  it('finds a folder renamed to .env, and a .env whose folder mtime was set back', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    await rename(join(root, 'pkg-3', 'lib', 'deep'), join(root, 'pkg-3', 'lib', '.env'));
    const deep = join(root, 'pkg-1', 'lib', 'deep');
    const old = fs.statSync(deep);
    await writeFile(join(deep, '.env'), 'S=5');
    await utimes(deep, old.atime, old.mtime);
    const found = await search(cache);
    expect(found).toContain(`${join(root, 'pkg-3', 'lib', '.env')}/`);
    expect(found).toContain(join(deep, '.env'));
    await expectSameAsFresh(cache);
  });

  it('follows no folder replaced by a symlink, and finds a .env reached through the new layout', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    const lib = join(root, 'pkg-0', 'lib');
    await rm(lib, { recursive: true });
    await symlink(outside, lib);
    await writeFile(join(root, 'pkg-0', '.env.x'), 'S=6');
    expect(await search(cache)).toContain(join(root, 'pkg-0', '.env.x'));
    await expectSameAsFresh(cache);
  });

  it('does not remember a folder changed within the margin of its read, or dated in the future', async () => {
    const realClock = hiddenPathsCache();
    await search(realClock);
    expect((await realClock.load(root, HIDDEN)).size).toBe(0);
    const behind = hiddenPathsCache({ now: () => Date.now() - 60_000, marginMs: 0 });
    await search(behind);
    expect((await behind.load(root, HIDDEN)).size).toBe(0);
    // Trusted once the margin has passed, and taken from the records then.
    const later = hiddenPathsCache({ now: ahead });
    await search(later);
    expect((await later.load(root, HIDDEN)).size).toBe(19);
  });

  it('still refuses a root over the entry budget with every folder taken from the records', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    const before = readdirCalls();
    await expect(search(cache, 10)).rejects.toThrow('more than 10 entries');
    expect(readdirCalls()).toBe(before);
  });

  it('keeps the records of at most 32 roots in memory, dropping the least recently used', async () => {
    const cache = hiddenPathsCache({ now: ahead });
    await search(cache);
    const records = await cache.load(root, HIDDEN);
    for (let i = 0; i < 32; i++) cache.store(`/elsewhere/${i}`, HIDDEN, records);
    expect((await cache.load(root, HIDDEN)).size).toBe(0);
    expect((await cache.load('/elsewhere/31', HIDDEN)).size).toBe(records.size);
  });
});
