/**
 * A folder the hidden-path search cannot read for a reason other than its mode bits (EPERM from
 * macOS privacy controls or a security module, too many open files, an I/O error): what it holds
 * is unknown, so it is masked whole. One that failed for a passing reason is never recorded, so
 * that the next search reads it again (one refused with EPERM is recorded as refused and tried
 * again by every search: hidden-paths-ahead.test.ts). A folder gone meanwhile is passed over.
 * The errors are injected into `readdirSync`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readdirFailures } from '../../test/helpers/failing-readdir';
import { findHiddenTargets } from './hidden-paths';
import { hiddenPathsCache } from './hidden-paths-cache';

vi.mock('node:fs', async (importOriginal) =>
  (await import('../../test/helpers/failing-readdir')).withFailingReaddir(await importOriginal()),
);

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'warden-hidden-errors-'));
  await mkdir(join(root, 'locked', 'deep'), { recursive: true });
  await writeFile(join(root, 'locked', 'deep', '.env'), 'SECRET=1');
  await mkdir(join(root, 'open'));
  await writeFile(join(root, 'open', '.env'), 'SECRET=2');
});
afterEach(async () => {
  readdirFailures.clear();
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
    readdirFailures.set(join(root, 'locked'), code);
    expect(await targets()).toEqual([join(root, 'locked'), join(root, 'open', '.env')]);
  });

  it('is passed over when it is gone (ENOENT, ENOTDIR)', async () => {
    for (const code of ['ENOENT', 'ENOTDIR']) {
      readdirFailures.set(join(root, 'locked'), code);
      expect(await targets()).toEqual([join(root, 'open', '.env')]);
    }
  });

  it('is not recorded: the next search reads it, and finds what is inside', async () => {
    const cache = hiddenPathsCache({ now: () => Date.now() + 10_000 });
    readdirFailures.set(join(root, 'locked'), 'EIO');
    expect(await targets(cache)).toEqual([join(root, 'locked'), join(root, 'open', '.env')]);
    readdirFailures.clear();
    expect(await targets(cache)).toEqual([
      join(root, 'locked', 'deep', '.env'),
      join(root, 'open', '.env'),
    ]);
  });
});
