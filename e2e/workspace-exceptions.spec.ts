/**
 * Workspace-file exceptions in the control panel, against a real `warden serve`: a server whose
 * policy lets it write `.vscode` and `.git` in its writable folder says so in red on its row, on
 * its detail and on the Policy screen; a server with a hidden-path exception as well gets both in
 * one sentence there; a server without one shows none.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test as base } from './fixtures';
import { openScreen, serverItem, snapBoth } from './flows/flow-app';

const test = base.extend<{ writable: string }>({
  // eslint-disable-next-line no-empty-pattern
  writable: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-e2e-workspace-'));
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
  seedServers: async ({ writable }, use) => {
    await use([
      ['workspace', '--rw', writable, '--unprotect', '.vscode', '--unprotect', '.git', '--', 'cat'],
      ['keys', '--rw', writable, '--unhide', '~/.aws', '--unprotect', '.mcp.json', '--', 'cat'],
      ['plain', '--rw', writable, '--', 'cat'],
    ]);
  },
});

const WORKSPACE_TEXT =
  'Exception: this server may write the workspace files .vscode, .git in its writable folders.';
const BOTH_TEXT =
  'Exceptions: this server may see the hidden path ~/.aws, and may write the workspace file ' +
  '.mcp.json in its writable folders.';

/** The colour the app gives error text, resolved the way the browser paints it. */
const errorColor = (page: Page) =>
  page.evaluate(() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--error-text)';
    document.body.append(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  });

test('a workspace-file exception shows in red on the row, the detail and the Policy screen', async ({
  panel: page,
}, testInfo) => {
  const row = serverItem(page, 'workspace');
  await expect(row.locator('[data-exceptions]')).toHaveText(WORKSPACE_TEXT);
  await expect(serverItem(page, 'plain').locator('[data-exceptions]')).toHaveCount(0);
  await page.mouse.move(0, 0);
  await snapBoth(page, row, 'workspace-exceptions-row', testInfo);

  await row.getByRole('button', { name: 'Details of workspace' }).click();
  const detail = page.locator('[data-detail="workspace"]');
  const exception = detail.locator('[data-exceptions="workspace"]');
  await expect(exception).toHaveText(WORKSPACE_TEXT);
  const red = await errorColor(page);
  expect(red).not.toBe(await detail.evaluate((el) => getComputedStyle(el).color));
  await expect(exception).toHaveCSS('color', red);
  await page.mouse.move(0, 0);
  await snapBoth(page, detail, 'workspace-exceptions-detail', testInfo);

  await openScreen(page, 'Policy');
  const section = page.getByRole('region', { name: 'Exceptions' });
  await expect(section.locator('[data-exceptions="workspace"]')).toHaveText(WORKSPACE_TEXT);
  await expect(section.locator('[data-exceptions="workspace"]')).toHaveCSS('color', red);
  await expect(section.locator('[data-exceptions="keys"]')).toHaveText(BOTH_TEXT);
  await expect(section.locator('[data-exceptions="plain"]')).toHaveCount(0);
  await page.mouse.move(0, 0);
  await snapBoth(page, section, 'workspace-exceptions-policy', testInfo);

  // The server's name there leads to its detail.
  await section.getByRole('button', { name: 'workspace', exact: true }).click();
  await expect(page.locator('[data-detail="workspace"] [data-exceptions]')).toHaveText(
    WORKSPACE_TEXT,
  );
});
