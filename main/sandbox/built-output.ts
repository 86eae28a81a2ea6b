/**
 * Locates built output (out/sandbox-init, out/renderer) from wherever Warden runs: a source tree,
 * a bundle, or a packaged app whose files live in Electron's archive.
 */
import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The same path outside Electron's archive: in a packaged app the core runs from `app.asar`, which
 * Electron reads as a folder but no other program can. What must be a real file (the sandbox
 * init, bound into each sandbox; the fetch preload, read by the server's own Node) is unpacked
 * next to it by electron-builder (`asarUnpack`), under `app.asar.unpacked`.
 */
export function outsideAsar(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/]|$)/, '$1app.asar.unpacked');
}

/**
 * The folder of the built sandbox init and fetch preload, as real files on disk: the packaged
 * copy unpacked from the archive, or `out/sandbox-init` of a source tree.
 */
export async function findSandboxInitDir(
  starts: readonly string[] = defaultStarts(),
): Promise<string | undefined> {
  const dir = await findBuiltDir('sandbox-init', 'init.cjs', starts);
  if (dir === undefined) return undefined;
  const real = outsideAsar(dir);
  return real === dir || (await exists(join(real, 'init.cjs'))) ? real : undefined;
}

/** The first `out/<name>` holding `marker` above `starts`, or undefined. */
export async function findBuiltDir(
  name: string,
  marker: string,
  starts: readonly string[] = defaultStarts(),
): Promise<string | undefined> {
  const seen = new Set<string>();
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      if (!seen.has(dir)) {
        seen.add(dir);
        const candidate = join(dir, 'out', name);
        if (await exists(join(candidate, marker))) return candidate;
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return undefined;
}

function defaultStarts(): string[] {
  const starts: string[] = [];
  try {
    starts.push(dirname(fileURLToPath(import.meta.url)));
  } catch {
    // Bundled as CommonJS: import.meta.url is not available.
  }
  if (process.argv[1]) starts.push(dirname(process.argv[1]));
  return starts;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
