/**
 * Flow 1 in Chromium against a real `warden serve`: the policy editor changes a sandboxed
 * server's isolation, folders and network, and the change is persisted with a new revision.
 * Also: a running instance on an older revision is flagged "restart to apply".
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import {
  addNodeServer,
  confirmServer,
  openScreen,
  serverItem,
  snap,
  snapBoth,
} from './flows/flow-app';
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
    await addNodeServer(page, 'live', netToolBundle);
    await confirmServer(page, 'live');
    // The bundle's folder, given in the Add form, is visible in the sandbox for node to load it.

    const client = await warden.connect('live');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await openScreen(page, 'Servers');
    await expect(serverItem(page, 'live').locator('[data-run-state]')).toHaveText('Ready');

    await serverItem(page, 'live').getByRole('button', { name: 'Edit policy of live' }).click();
    // Listing the tools pinned them, a new revision the instance follows as it runs.
    await expect(page.getByText(/^Revision [2-9]/)).toBeVisible();
    await expect(page.locator('[data-restart-needed]')).toHaveCount(0);
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

    // Its pin forgotten, the tool leaves the list; the next listing pins it anew, unasked.
    await echo.getByRole('button', { name: 'Forget the pinned definition of echo' }).click();
    const asked = echo.getByRole('group', { name: 'Forget echo' });
    await expect(asked).toContainText('not shown as drift');
    await snapBoth(page, echo, 'tool-forget', testInfo);
    await asked.getByRole('button', { name: 'Forget', exact: true }).click();
    await expect(echo).toHaveCount(0);
    type Stored = { name: string; policy: { tools: { pinned: Record<string, unknown> } } };
    const pinned = async () => {
      const config = (await warden.readConfig()) as unknown as { servers: Stored[] };
      return Object.keys(config.servers.find((x) => x.name === 'live')!.policy.tools.pinned);
    };
    expect(await pinned()).not.toContain('echo');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await expect(echo).toBeVisible();
    expect(await pinned()).toContain('echo');
  });
});

test('a secret is kept out of the config, never shown back, replaced, and redacted from the log', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const first = 'hunter2-first-secret';
  const second = 'hunter2-second-secret';
  await page.goto(warden.url);
  await addNodeServer(page, 'sec', netToolBundle);
  const row = await confirmServer(page, 'sec');
  await row.getByRole('button', { name: 'Edit policy of sec' }).click();
  const extra = await mkdtemp(join(tmpdir(), 'warden-e2e-extra-'));
  await page.getByLabel('Folder path').fill(extra);
  await page.getByRole('button', { name: 'Add folder' }).click();

  // Saving a secret while other edits are pending keeps them in the draft.
  await page.getByRole('tab', { name: 'Environment' }).click();
  await page.getByLabel('Name', { exact: true }).fill('SERVICE_PASSWORD');
  await expect(page.getByRole('checkbox', { name: 'Keep as a secret' })).toBeChecked();
  await expect(page.getByLabel('Value', { exact: true })).toHaveAttribute('type', 'password');
  await page.getByLabel('Value', { exact: true }).fill(first);
  await page.getByRole('button', { name: 'Save secret' }).click();
  await expect(page.getByText(/Secret saved as revision \d+\./)).toBeVisible();
  const item = page.locator('[data-env="SERVICE_PASSWORD"]');
  // warden serve has no OS keychain: the tab says so, and where the value is.
  await expect(item).toContainText('secret, kept unencrypted, value hidden');
  await expect(page.locator('[data-secret-place="file"]')).toContainText(
    'secrets.json (unencrypted, mode 0600): Warden without the app has no OS keychain.',
  );
  expect(await page.content()).not.toContain(first);
  let saved = JSON.stringify(await warden.readConfig());
  expect(saved).not.toContain(first);
  expect(saved).toContain('"kind":"secret"');

  await item.getByLabel('New value for SERVICE_PASSWORD').fill(second);
  await item.getByRole('button', { name: 'Replace secret SERVICE_PASSWORD' }).click();
  await expect(item.getByRole('status')).toHaveText('Secret replaced.');
  await expect(item.getByLabel('New value for SERVICE_PASSWORD')).toHaveValue('');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
  saved = JSON.stringify(await warden.readConfig());
  expect(saved).not.toContain(second);
  expect(saved).toContain(extra);
  await snap({ page, testInfo }, 'secret-hidden');

  const client = await warden.connect('sec');
  await client.callTool({ name: 'echo', arguments: { message: `leak ${second} and ${first}` } });
  await openScreen(page, 'Audit log');
  await page.getByLabel('Kind').selectOption('mcp.request');
  await page.getByRole('option').filter({ hasText: 'tool echo' }).first().click();
  const request = page
    .getByRole('complementary', { name: 'Event detail' })
    .getByLabel('Request (redacted)');
  await expect(request).toContainText('leak «secret:SERVICE_PASSWORD»');
  expect(await page.content()).not.toContain(second);
});

test('a folder the sandbox refuses at launch is shown failed, with the reason beside the folder', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const missing = join(tmpdir(), `warden-e2e-missing-${process.pid}-${Date.now()}`);
  await page.goto(warden.url);
  await addNodeServer(page, 'roots', netToolBundle);
  const row = await confirmServer(page, 'roots');
  await row.getByRole('button', { name: 'Edit policy of roots' }).click();
  await page.getByLabel('Folder path').fill(missing);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();

  await expect(warden.connect('roots')).rejects.toThrow(/does not exist/);
  const root = page.locator(`[data-root="${missing}"]`);
  await expect(root.locator('.field-error')).toContainText(`root "${missing}" does not exist`);
  await expect(root.locator('.field-error')).toContainText('To fix: create');
  await snap({ page, testInfo }, 'root-refused-inline');
  await openScreen(page, 'Servers');
  await expect(serverItem(page, 'roots').locator('[data-run-state]')).toHaveText('Failed');
  await expect(serverItem(page, 'roots').locator('[data-failure]')).toContainText(
    `Root "${missing}" does not exist`,
  );
  await expect(serverItem(page, 'roots')).toContainText('To fix: create');
});

test('each folder is checked on this host as it is added: a missing or symlinked one says why, before any launch', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const base = await mkdtemp(join(tmpdir(), 'warden-e2e-roots-'));
  const real = join(base, 'project');
  const link = join(base, 'shortcut');
  const missing = join(base, 'not-created-yet');
  await mkdir(real);
  await symlink(real, link);
  try {
    await page.goto(warden.url);
    await addNodeServer(page, 'checked', netToolBundle);
    await serverItem(page, 'checked')
      .getByRole('button', { name: 'Edit policy of checked' })
      .click();
    for (const folder of [real, link, missing]) {
      await page.getByLabel('Folder path').fill(folder);
      await page.getByRole('button', { name: 'Add folder' }).click();
    }
    const problem = (path: string) => page.locator(`[data-root="${path}"] .field-error`);
    await expect(problem(missing)).toHaveText(
      `Not usable on this host: root "${missing}" does not exist. To fix: create ${missing}, or remove it from the server's filesystem roots`,
    );
    await expect(problem(link)).toContainText(`resolves to ${real} through a symlink`);
    await expect(problem(link)).toContainText(`declare the real path ${real} instead`);
    await expect(page.locator(`[data-root="${real}"]`)).toBeVisible();
    await expect(problem(real)).toHaveCount(0);
    await snap({ page, ...warden, testInfo }, 'roots-checked-inline');
    // Created afterwards: the next look at the list finds it usable.
    await mkdir(missing);
    await page.getByRole('button', { name: `Remove folder ${link}` }).click();
    await expect(problem(missing)).toHaveCount(0);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('a writable folder comes with what it gives away; a read-only one without', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const base = await mkdtemp(join(tmpdir(), 'warden-e2e-writable-'));
  try {
    await page.goto(warden.url);
    await addNodeServer(page, 'writer', netToolBundle);
    await serverItem(page, 'writer').getByRole('button', { name: 'Edit policy of writer' }).click();
    await page.getByLabel('Folder path').fill(base);
    await page.getByRole('button', { name: 'Add folder' }).click();
    const warning = page.locator('[data-writable-warning]');
    const writable = page.locator(`[data-root="${base}"]`).getByRole('switch');
    // Added read-only: nothing to warn about yet.
    await expect(writable).toHaveAttribute('aria-checked', 'false');
    await expect(warning).toHaveCount(0);
    await writable.click();
    await expect(warning).toContainText('Warden keeps the workspace files in a writable folder');
    await expect(warning).toContainText('does not let writer leave new ones there');
    await expect(warning).toContainText('make a folder writable only if you would let writer');
    const folders = page.getByRole('region', { name: 'Folders', exact: true });
    await snapBoth(page, folders, 'writable-warning', testInfo);
    await writable.click();
    await expect(warning).toHaveCount(0);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});
