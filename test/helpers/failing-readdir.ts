/**
 * `readdirSync` that fails for chosen folders, for tests of what the hidden-path search and the
 * backends make of a folder they cannot read. In the test file:
 *
 *   vi.mock('node:fs', async (importOriginal) =>
 *     (await import('…/test/helpers/failing-readdir')).withFailingReaddir(await importOriginal()));
 *
 * then `readdirFailures.set(folder, 'EPERM')`, and `readdirFailures.clear()` after each test.
 */
import type * as fs from 'node:fs';

/** Folder → the error code its `readdirSync` throws. */
export const readdirFailures = new Map<string, string>();

/** `node:fs` with `readdirSync` failing for the folders in {@link readdirFailures}. */
export function withFailingReaddir(real: typeof fs): typeof fs {
  const readdirSync = ((path: fs.PathLike, options?: unknown) => {
    const code = readdirFailures.get(String(path));
    if (code !== undefined) throw Object.assign(new Error(`${code}: ${String(path)}`), { code });
    return real.readdirSync(path, options as fs.ObjectEncodingOptions);
  }) as typeof real.readdirSync;
  return { ...real, readdirSync, default: { ...real, readdirSync } } as typeof fs;
}
