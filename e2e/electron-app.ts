/** Launching the built Electron app for a test, where its binary exists. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ElectronApplication, _electron as electron } from '@playwright/test';
import { findElectron } from './electron-binary';
import { expect, repoRoot, test } from './fixtures';

const found = findElectron();

/** Launches the built app with exactly the environment `env`. */
type LaunchElectron = (env: Record<string, string>) => Promise<ElectronApplication>;

/**
 * A launcher of out/electron/main.cjs with a given environment. Where the Electron binary is
 * missing (its install script, which downloads it, was skipped), marks the test skipped with the
 * reason (also printed, so that a console run says why it did not run) and returns undefined.
 */
export function builtElectron(): LaunchElectron | undefined {
  if ('missing' in found) {
    console.warn(`electron e2e skipped: ${found.missing}`);
    test.skip(true, found.missing);
    return undefined;
  }
  const { path } = found;
  const main = join(repoRoot, 'out', 'electron', 'main.cjs');
  expect(existsSync(main), `${main} is missing: run "npm run build"`).toBe(true);
  return (env) =>
    electron.launch({
      executablePath: path,
      args: [main, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      env,
    });
}
