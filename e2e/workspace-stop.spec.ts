/**
 * A server that creates a workspace file in its writable folder, in Chromium against a real
 * `warden serve`: the panel shows the instance failed with what it created and where it was moved,
 * and the audit log has the refusal.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test as base } from './fixtures';
import { openConfirmed, openScreen, serverItem, snapBoth } from './flows/flow-app';

const test = base.extend<{ project: string }>({
  // eslint-disable-next-line no-empty-pattern
  project: async ({}, use) => {
    const project = await mkdtemp(join(tmpdir(), 'warden-e2e-project-'));
    await use(project);
    await rm(project, { recursive: true, force: true });
  },
  seedServers: async ({ project }, use) => {
    await use([
      ['planter', '--rw', project, '--', '/bin/sh', '-c', `mkdir ${project}/.vscode; sleep 60`],
    ]);
  },
});

test('a server that creates a workspace file is stopped, shown failed with why, and audited', async ({
  page,
  warden,
  project,
}, testInfo) => {
  test.skip(process.platform !== 'linux', 'the watch is the Linux sandbox’s (Seatbelt refuses)');
  await openConfirmed(page, warden.url, 'planter');
  await expect(warden.connect('planter')).rejects.toThrow();
  await openScreen(page, 'Servers');
  const row = serverItem(page, 'planter');
  await expect(row.locator('[data-run-state]')).toHaveText('Failed', { timeout: 15_000 });
  await expect(row.locator('[data-failure]')).toContainText(`it created ${project}/.vscode`);
  await expect(row.locator('[data-failure]')).toContainText('moved aside to');
  await snapBoth(page, row, 'workspace-stop-row', testInfo);
  expect(await readdir(project)).toEqual([expect.stringMatching(/^\.vscode\.moved-by-warden-/)]);
  await openScreen(page, 'Audit');
  const refusal = page.getByText(/refused create-workspace-file/).first();
  await expect(refusal).toBeVisible();
  await snapBoth(page, page.locator('main'), 'workspace-stop-audit', testInfo);
});
