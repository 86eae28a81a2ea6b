/** Where the Electron executable is, or why there is none (its install script was skipped). */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export function findElectron(): { path: string } | { missing: string } {
  // Checked first: without the package, the type-check's path mapping would hand Playwright's
  // loader Electron's type definitions, and the reason shown would be a syntax error.
  const pkg = fileURLToPath(new URL('../node_modules/electron/package.json', import.meta.url));
  if (!existsSync(pkg)) {
    return {
      missing:
        'the Electron binary is not installed (the optional electron package is absent: its download failed or was skipped)',
    };
  }
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    if (typeof path !== 'string') return { missing: 'the electron package did not export a path' };
    return existsSync(path) ? { path } : { missing: `the Electron binary ${path} does not exist` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { missing: `the Electron binary is not installed (${why})` };
  }
}
