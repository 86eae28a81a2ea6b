/** Where the Electron executable is, or why there is none (its install script was skipped). */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export function findElectron(): { path: string } | { missing: string } {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    if (typeof path !== 'string') return { missing: 'the electron package did not export a path' };
    return existsSync(path) ? { path } : { missing: `the Electron binary ${path} does not exist` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { missing: `the Electron binary is not installed (${why})` };
  }
}
