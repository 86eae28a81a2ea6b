/**
 * Flow 1 in Chromium against a real `warden serve`: the policy editor changes a sandboxed
 * server's isolation, folders and network, and the change is persisted with a new revision.
 * Also: a running instance on an older revision is flagged "restart to apply".
 */
import { dirname } from 'node:path';
import { expect, test } from './fixtures';
import { openScreen, serverItem, snap } from './flows/flow-app';
import { policyFlow } from './flows/policy-flow';

test('flow 1: add a server, toggle the sandbox, add a read-only folder and a domain, saved as a new revision', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  await page.goto(warden.url);
  await policyFlow({ page, ...warden, testInfo }, netToolBundle);
});

test.describe('with a running instance', () => {
  test('an instance on an older revision says "restart to apply"', async ({
    page,
    warden,
    netToolBundle,
  }, testInfo) => {
    await page.goto(warden.url);
    await page.getByLabel('Name').fill('live');
    await page.getByLabel('Command').fill(process.execPath);
    await page.getByLabel('Arguments').fill(netToolBundle);
    await page.getByRole('button', { name: 'Add server' }).click();
    const row = serverItem(page, 'live');
    await row.getByRole('button', { name: 'I have checked this command for live' }).click();
    // The bundle's folder must be visible inside the sandbox for node to load it.
    await row.getByRole('button', { name: 'Edit policy of live' }).click();
    await page.getByLabel('Folder path').fill(dirname(netToolBundle));
    await page.getByRole('button', { name: 'Add folder' }).click();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();

    const client = await warden.connect('live');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await openScreen(page, 'Servers');
    await expect(serverItem(page, 'live').locator('[data-run-state]')).toHaveText(
      'Running (1 instance)',
    );

    await serverItem(page, 'live').getByRole('button', { name: 'Edit policy of live' }).click();
    await page.getByRole('tab', { name: 'Environment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('MODE');
    await page.getByLabel('Value', { exact: true }).fill('test');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.locator('[data-restart-needed]')).toContainText('Restart to apply');
    await snap({ page, ...warden, testInfo }, 'restart-to-apply');

    // The tools the client listed are pinned and shown with their annotations.
    await page.getByRole('tab', { name: 'Tools' }).click();
    const echo = page.locator('[data-tool="echo"]');
    await expect(echo).toContainText('read-only');
    await expect(echo.getByRole('switch', { name: 'Enabled echo' })).toHaveAttribute(
      'aria-checked',
      'true',
    );
    await snap({ page, ...warden, testInfo }, 'tools-tab');
  });
});
