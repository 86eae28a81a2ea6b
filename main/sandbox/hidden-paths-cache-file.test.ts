/**
 * Hidden-path search records kept on disk: a later process takes them from a private file of
 * this user, and refuses (searching in full) a file or folder that another user owns or may
 * write, a symlink, a file that does not parse or names another root, and an oversized one.
 * Each refusal is checked against a forged file that, if it were used, would hide a `.env`.
 */
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { MAX_RECORD_FILE_BYTES, hiddenPathsCache, hiddenPathsCacheDir } from './hidden-paths-cache';
import { parseFolderRecords } from './hidden-paths-record';

const HIDDEN = ['.env', '.env.*'];
const isRoot = process.getuid?.() === 0;
const ahead = () => Date.now() + 10_000;
let base: string;
let root: string;
let dir: string;
let secret: string;

beforeEach(async () => {
  base = await fsp.mkdtemp(join(tmpdir(), 'warden-hidden-file-'));
  root = join(base, 'root');
  await fsp.mkdir(join(root, 'a', 'b'), { recursive: true });
  secret = join(root, 'a', 'b', '.env');
  await fsp.writeFile(secret, 'S=1');
  dir = hiddenPathsCacheDir(join(base, 'state'));
});
afterEach(async () => fsp.rm(base, { recursive: true, force: true }));

/** A search by a new process (a new cache over the same folder). */
async function searchAfresh() {
  const cache = hiddenPathsCache({ dir, now: ahead });
  const r = await findHiddenTargets([root], HIDDEN, undefined, undefined, { cache });
  cache.flush();
  if (!r.ok) throw new Error(r.error.message);
  return r.value.map((t) => t.path);
}

/** Writes records that leave out the `.env`: used, they would hide nothing. */
async function forgeRecords(): Promise<string> {
  await searchAfresh();
  const [name] = await fsp.readdir(dir);
  const file = join(dir, name!);
  const data = JSON.parse(await fsp.readFile(file, 'utf8')) as { folders: unknown[][] };
  for (const row of data.folders) row[6] = [];
  await fsp.writeFile(file, JSON.stringify(data), { mode: 0o600 });
  return file;
}

describe('hidden-path records on disk', () => {
  it('writes a private file that a later search uses', async () => {
    expect(await searchAfresh()).toEqual([secret]);
    const [name] = await fsp.readdir(dir);
    expect((await fsp.stat(dir)).mode & 0o777).toBe(0o700);
    expect((await fsp.stat(join(dir, name!))).mode & 0o777).toBe(0o600);
    // The forged file is used (the control): so each refusal below is what keeps the .env found.
    await forgeRecords();
    expect(await searchAfresh()).toEqual([]);
  });

  it('refuses a record file others may write', async () => {
    await fsp.chmod(await forgeRecords(), 0o666);
    expect(await searchAfresh()).toEqual([secret]);
  });

  it('refuses a record folder others may write', async () => {
    await forgeRecords();
    await fsp.chmod(dir, 0o777);
    expect(await searchAfresh()).toEqual([secret]);
  });

  it.skipIf(!isRoot)(
    'refuses a record file owned by another user (needs root to chown)',
    async () => {
      await fsp.chown(await forgeRecords(), 65534, 65534);
      expect(await searchAfresh()).toEqual([secret]);
    },
  );

  it('refuses a record file that is a symlink', async () => {
    const file = await forgeRecords();
    await fsp.writeFile(join(base, 'elsewhere.json'), await fsp.readFile(file), { mode: 0o600 });
    await fsp.rm(file);
    await fsp.symlink(join(base, 'elsewhere.json'), file);
    expect(await searchAfresh()).toEqual([secret]);
  });

  it('searches in full past a corrupt or oversized file, and never fails the launch', async () => {
    const file = await forgeRecords();
    await fsp.writeFile(file, '{"format":1,', { mode: 0o600 });
    expect(await searchAfresh()).toEqual([secret]);
    await forgeRecords();
    await fsp.truncate(file, MAX_RECORD_FILE_BYTES + 1);
    expect(await searchAfresh()).toEqual([secret]);
  });
});

describe('record file parsing', () => {
  const row = (path: string, dirs: string[], matches: string[] = []) => [
    path,
    1,
    2,
    3.5,
    dirs.length + matches.length,
    dirs,
    matches,
    0,
  ];
  const file = (folders: unknown[], over: Record<string, unknown> = {}) =>
    JSON.stringify({ format: 4, root: '/r', patterns: ['.env'], folders, ...over });

  it('takes a well-formed file of the same root and patterns', () => {
    expect(
      parseFolderRecords(file([row('/r', ['a']), row('/r/a', [])]), '/r', ['.env'])?.size,
    ).toBe(2);
    const top = file([row('/', ['r']), row('/r', [])], { root: '/' });
    expect(parseFolderRecords(top, '/', ['.env'])?.size).toBe(2);
    const denied = parseFolderRecords(file([['/r', 1, 2, 3, 0, [], [], 1]]), '/r', ['.env']);
    expect(denied?.get('/r')?.denied).toBe(true);
    expect(denied?.get('/r')?.refused).toBeUndefined();
    const refused = parseFolderRecords(file([['/r', 1, 2, 3, 0, [], [], 2]]), '/r', ['.env']);
    expect(refused?.get('/r')).toMatchObject({ denied: true, refused: true });
  });

  it('refuses names that are not plain entry names, folders outside the root, other keys', () => {
    for (const text of [
      file([row('/r', ['../etc'])]),
      file([row('/r', ['..'])]),
      file([row('/r', ['a/b'])]),
      file([row('/elsewhere', ['a'])]),
      file([row('/rr', ['a'])]),
      file([row('/r', ['a'])], { root: '/s' }),
      file([row('/r', ['a'])], { patterns: ['.env', '.env.*'] }),
      file([row('/r', ['a'])], { format: 1 }),
      file([['/r', 1, 2, '3', 0, [], [], 0]]),
      file([['/r', 1, -2, 3, 0, [], [], 0]]),
      file([['/r', 1, 2, 3, 0, ['a'], [], 0]]),
      file([['/r', 1, 2, 3, 0, [], []]]),
      // A folder that could not be listed has no entries; a flag is 0, 1 or 2.
      file([['/r', 1, 2, 3, 1, ['a'], [], 1]]),
      file([['/r', 1, 2, 3, 1, ['a'], [], 2]]),
      file([['/r', 1, 2, 3, 0, [], [], 3]]),
      file([['/r', 1, 2, 3, 0, [], [], true]]),
    ]) {
      expect(parseFolderRecords(text, '/r', ['.env']), text).toBeUndefined();
    }
  });
});

describe('records written after the launch', () => {
  const files = async () => fsp.readdir(dir).catch(() => [] as string[]);
  const search = async (cache: ReturnType<typeof hiddenPathsCache>) => {
    const r = await findHiddenTargets([root], HIDDEN, undefined, undefined, { cache });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.map((t) => t.path);
  };

  it('are on disk only once write() has run, on a later turn than the search', async () => {
    const cache = hiddenPathsCache({ dir, now: ahead });
    expect(await search(cache)).toEqual([secret]);
    expect(await files()).toEqual([]);
    const written = cache.write();
    expect(await files()).toEqual([]);
    await written;
    expect(await files()).toHaveLength(1);
    // A new process takes them in: forged to hide the .env, they are used (so they were written).
    await forgeRecords();
    expect(await searchAfresh()).toEqual([]);
  });

  it('are not written again when a search changed nothing', async () => {
    const cache = hiddenPathsCache({ dir, now: ahead });
    await search(cache);
    await cache.write();
    const [name] = await files();
    await fsp.rm(join(dir, name!));
    expect(await search(cache)).toEqual([secret]);
    await cache.write();
    expect(await files()).toEqual([]);
  });

  it('cost only the speed-up when the process dies before writing them', async () => {
    // The first process searched and stored, then ended without write(): no file, or a torn one.
    await search(hiddenPathsCache({ dir, now: ahead }));
    expect(await searchAfresh()).toEqual([secret]);
    const [name] = await files();
    const file = join(dir, name!);
    await fsp.rm(file);
    await fsp.writeFile(`${file}.tmp-1-00000000`, '{"format":1,', { mode: 0o600 });
    await fsp.writeFile(secret, 'S=2');
    expect(await searchAfresh()).toEqual([secret]);
  });
});
