/** Bundles a TypeScript entry into a standalone script so a child `node` process can run it. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';

/**
 * Returns the path of the bundle (ESM `.mjs` or CommonJS `.cjs`) in a fresh temp dir. Packages
 * are bundled in too, so the script runs from anywhere (inside a sandbox as well).
 */
export async function bundleForNode(entry: string, format: 'esm' | 'cjs' = 'esm'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-bundle-'));
  return bundleInto(dir, entry, format, 'bundled');
}

/**
 * Before the file's tests, bundles `entry` as ESM with its packages left external and hands the
 * script's path to `take`; after them, removes it. The script sits under the project's
 * node_modules/.cache, so that those packages (better-sqlite3 and its native module) resolve.
 */
export function bundleBesidePackagesAll(entry: string, take: (script: string) => void): void {
  let dir: string | undefined;
  beforeAll(async () => {
    const cache = join(import.meta.dirname, '../../node_modules/.cache');
    await mkdir(cache, { recursive: true });
    dir = await mkdtemp(join(cache, 'warden-bundle-'));
    take(await bundleInto(dir, entry, 'esm', 'external'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
}

async function bundleInto(
  dir: string,
  entry: string,
  format: 'esm' | 'cjs',
  packages: 'bundled' | 'external',
): Promise<string> {
  const outfile = join(dir, basename(entry).replace(/\.ts$/, format === 'esm' ? '.mjs' : '.cjs'));
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    outfile,
    logLevel: 'silent',
    ...(packages === 'external' ? { packages } : {}),
    // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
    ...(format === 'esm' && packages === 'bundled'
      ? {
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return outfile;
}
