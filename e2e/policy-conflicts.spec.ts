/**
 * A server's policy edited in two windows of the same panel, in Chromium against a real `warden
 * serve`: a change saved in one is taken in by the other under its edits, and a field both
 * changed is named with the value stored now, escaped where it came from outside.
 */
import { dirname, join } from 'node:path';
import { expect, repoRoot, test as base } from './fixtures';
import { openConfirmed, openScreen, serverItem, snapBoth } from './flows/flow-app';

const folder = join(repoRoot, 'node_modules', 'zod');

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([['tool', '--ro', dirname(netToolBundle), '--', process.execPath, netToolBundle]]);
  },
});

test('policy: a field changed in another window while editing is named with its stored value', async ({
  page,
  warden,
}, testInfo) => {
  await openConfirmed(page, warden.url, 'tool');
  /** Opens the editor in `p`, picks a network mode and adds the folder (writable or not). */
  const editIn = async (p: typeof page, mode: RegExp, writable: boolean) => {
    await openScreen(p, 'Servers');
    await serverItem(p, 'tool').getByRole('button', { name: 'Edit policy of tool' }).click();
    await p.getByRole('tab', { name: 'Network' }).click();
    await p.getByRole('radio', { name: mode }).check();
    await p.getByRole('tab', { name: 'Isolation and folders' }).click();
    await p.getByLabel('Folder path').fill(folder);
    await p.getByRole('button', { name: 'Add folder' }).click();
    if (writable) await p.locator(`[data-root="${folder}"]`).getByRole('switch').click();
  };
  // This window picks "Ask" and adds a folder writable…
  await editIn(page, /^Ask/, true);
  // …while a second window picks "Allowlist", adds the same folder read-only, and saves.
  const other = await page.context().newPage();
  await other.goto(warden.url);
  await editIn(other, /^Allowlist/, false);
  await other.getByRole('button', { name: 'Save policy' }).click();
  await expect(other.getByText(/^Saved as revision \d+\.$/)).toBeVisible();
  await other.close();

  const notice = page.locator('[data-draft-conflicts]');
  await expect(notice).toContainText('Also changed elsewhere while you edited: ');
  await expect(notice).toContainText('Network (stored: Allowlist)');
  await expect(notice).toContainText(`Folder ${folder} (stored: read-only)`);
  await expect(notice).toContainText('Your values are kept: save to keep them, or discard');
  await snapBoth(page, notice, 'policy-conflict-notice', testInfo);
  await page.getByRole('tab', { name: 'Network' }).click();
  await expect(page.getByRole('radio', { name: /^Ask/ })).toBeChecked();
  await page.getByRole('button', { name: 'Discard changes' }).click();
  await expect(notice).toHaveCount(0);
  await expect(page.getByRole('radio', { name: /^Allowlist/ })).toBeChecked();
  const config = await warden.readConfig();
  const saved = config.servers.find((s) => s.name === 'tool') as unknown as {
    policy: { network: { mode: string } };
  };
  expect(saved.policy.network.mode).toBe('allowlist');
});
