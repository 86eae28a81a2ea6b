/** Bundles a TypeScript entry into a standalone script so a child `node` process can run it. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

/**
 * Returns the path of the bundle (ESM `.mjs` or CommonJS `.cjs`) in a fresh temp dir. Packages
 * are bundled in too, so the script runs from anywhere (inside a sandbox as well).
 */
export async function bundleForNode(entry: string, format: 'esm' | 'cjs' = 'esm'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-bundle-'));
  const outfile = join(dir, basename(entry).replace(/\.ts$/, format === 'esm' ? '.mjs' : '.cjs'));
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    outfile,
    logLevel: 'silent',
    // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
    ...(format === 'esm'
      ? {
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return outfile;
}
