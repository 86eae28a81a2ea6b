/**
 * A folder the hidden-path search cannot read for a reason other than its mode bits (EPERM from
 * macOS privacy controls or a security module, too many open files, an I/O error): what it holds
 * is unknown, so it is masked whole, and never recorded, so that the next search reads it again.
 * A folder gone meanwhile is passed over. The errors are injected into `readdirSync`.
 */
import type * as fs from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findHiddenTargets } from './hidden-paths';
import { hiddenPathsCache } from './hidden-paths-cache';

const failing = vi.hoisted(() => new Map<string, string>());
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const readdirSync = ((path: fs.PathLike, options?: unknown) => {
    const code = failing.get(String(path));
    if (code !== undefined) throw Object.assign(new Error(`${code}: ${String(path)}`), { code });
    return real.readdirSync(path, options as fs.ObjectEncodingOptions);
  }) as typeof real.readdirSync;
  return { ...real, readdirSync, default: { ...real, readdirSync } };
});

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'warden-hidden-errors-'));
  await mkdir(join(root, 'locked', 'deep'), { recursive: true });
  await writeFile(join(root, 'locked', 'deep', '.env'), 'SECRET=1');
  await mkdir(join(root, 'open'));
  await writeFile(join(root, 'open', '.env'), 'SECRET=2');
});
afterEach(async () => {
  failing.clear();
  await rm(root, { recursive: true, force: true });
});

async function targets(cache?: ReturnType<typeof hiddenPathsCache>): Promise<string[]> {
  const found = await findHiddenTargets([root], ['.env'], undefined, undefined, {
    ...(cache ? { cache } : {}),
  });
  if (!found.ok) throw new Error(found.error.message);
  return found.value.map((t) => t.path).sort();
}

describe('a folder the search cannot read', () => {
  it.each(['EPERM', 'EMFILE', 'EIO'])('is masked whole on %s', async (code) => {
    failing.set(join(root, 'locked'), code);
    expect(await targets()).toEqual([join(root, 'locked'), join(root, 'open', '.env')]);
  });

  it('is passed over when it is gone (ENOENT, ENOTDIR)', async () => {
    for (const code of ['ENOENT', 'ENOTDIR']) {
      failing.set(join(root, 'locked'), code);
      expect(await targets()).toEqual([join(root, 'open', '.env')]);
    }
  });

  it('is not recorded: the next search reads it, and finds what is inside', async () => {
    const cache = hiddenPathsCache({ now: () => Date.now() + 10_000 });
    failing.set(join(root, 'locked'), 'EIO');
    expect(await targets(cache)).toEqual([join(root, 'locked'), join(root, 'open', '.env')]);
    failing.clear();
    expect(await targets(cache)).toEqual([
      join(root, 'locked', 'deep', '.env'),
      join(root, 'open', '.env'),
    ]);
  });
});
