/**
 * The Electron app through Playwright's `_electron.launch`, where the Electron binary exists. Here
 * it often does not (the package's install script, which downloads it, was skipped); the test then
 * reports itself skipped and says why, rather than passing without having run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtElectron } from './electron-app';
import { expect, processEnv, test } from './fixtures';

// Playwright reads fixture dependencies from an object pattern, even an empty one.
// eslint-disable-next-line no-empty-pattern
test('the Electron window shows the server list', async ({}, testInfo) => {
  const launch = builtElectron();
  if (!launch) return;
  const home = await mkdtemp(join(tmpdir(), 'warden-electron-'));
  try {
    const app = await launch({ ...processEnv(), WARDEN_HOME: home });
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
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
