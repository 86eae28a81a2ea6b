/**
 * Node's on-disk compile cache for the CLI's own code (`module.enableCompileCache`, Node ≥ 22.1
 * and Electron's Node). On an older Node this does nothing.
 *
 * The cache holds compiled code that Node runs, so it lives in a folder only this user can write
 * (under the Warden state folder, mode 0700), never in a shared temporary folder where another
 * local user could plant entries.
 */
import { mkdirSync, statSync } from 'node:fs';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { resolveWardenHome } from '../config/warden-home';

type WithCompileCache = { enableCompileCache?: (directory?: string) => unknown };

/** Where the CLI's compile cache lives for the state folder `wardenHome`. */
export function compileCacheDir(wardenHome: string): string {
  return join(wardenHome, 'cache', 'compile');
}

/**
 * Turns on the compile cache when the runtime has it and the folder is private; else no-op. Called
 * by runEntry once the state folder itself passed its check.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): boolean {
  const enable = (nodeModule as WithCompileCache).enableCompileCache;
  if (typeof enable !== 'function' || env.NODE_DISABLE_COMPILE_CACHE) return false;
  try {
    const dir = compileCacheDir(resolveWardenHome(env));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    // Refuse a folder someone else owns or can write: its entries would run as this user.
    if ((typeof process.getuid === 'function' && st.uid !== process.getuid()) || st.mode & 0o022)
      return false;
    enable(dir);
    return true;
  } catch {
    return false;
  }
}
