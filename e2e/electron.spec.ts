/**
 * The Electron app through Playwright's `_electron.launch`, where the Electron binary exists. Here
 * it often does not (the package's install script, which downloads it, was skipped); the test then
 * reports itself skipped and says why, rather than passing without having run.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron } from '@playwright/test';
import { findElectron } from './electron-binary';
import { expect, repoRoot, test } from './fixtures';

const found = findElectron();

// Playwright reads fixture dependencies from an object pattern, even an empty one.
// eslint-disable-next-line no-empty-pattern
test('the Electron window shows the server list', async ({}, testInfo) => {
  if ('missing' in found) {
    // Also printed, so that a console run says why this did not run.
    console.warn(`electron e2e skipped: ${found.missing}`);
    test.skip(true, found.missing);
    return;
  }
  const main = join(repoRoot, 'out', 'electron', 'main.cjs');
  expect(existsSync(main), `${main} is missing: run "npm run build"`).toBe(true);

  const home = await mkdtemp(join(tmpdir(), 'warden-electron-'));
  const app = await electron.launch({
    executablePath: found.path,
    args: [main, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    env: { ...process.env, WARDEN_HOME: home },
  });
  try {
    const window = await app.firstWindow();
    await expect(window.getByRole('heading', { name: 'Servers' })).toBeVisible();
    await expect(window.getByText('No servers yet')).toBeVisible();
    await testInfo.attach('electron-servers', {
      body: await window.screenshot(),
      contentType: 'image/png',
    });
  } finally {
    await app.close();
    await rm(home, { recursive: true, force: true });
  }
});
