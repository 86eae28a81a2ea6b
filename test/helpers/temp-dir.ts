/** A fresh folder for each test of a file, removed after the test (and after later hooks' cleanup). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * Before each test, makes a folder named `prefix` + random under the temp dir and hands it to
 * `take`; after the test, removes it. Registered first in a file, its removal runs last.
 */
export function tempDirEach(prefix: string, take: (dir: string) => void): void {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    take(dir);
  });
  afterEach(async () => {
    if (dir) await removeTree(dir);
    dir = undefined;
  });
}

/**
 * Removes `dir` and everything in it. A Node process a test started may still be writing there as
 * it exits (from Node 22 on, its compile cache goes to the state folder at exit), so a folder
 * that is not empty yet is tried again a few times rather than failing the test.
 */
export function removeTree(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
