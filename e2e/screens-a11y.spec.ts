/**
 * Every screen, in the light and the dark theme, against a real `warden serve` with a real
 * sandboxed server that a client has used: no serious or critical axe-core violations; the
 * screens and the audit list work from the keyboard with visible focus; screenshots of each.
 */
import type { Page } from '@playwright/test';
import { seriousA11yViolations } from './axe';
import { expect, netToolSeed, test as base } from './fixtures';
import { confirmServer, openScreen, serverItem, snap } from './flows/flow-app';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([
      netToolSeed(
        netToolBundle,
        'net',
        '--net',
        'allowlist',
        '--allow',
        'api.example.com',
        '--memory',
        '256',
      ),
      ['bare', '--isolation', 'off', '--', '/usr/bin/env'],
    ]);
  },
});

async function expectNoViolations(page: Page, where: string) {
  const violations = await seriousA11yViolations(page);
  expect(violations, `${where}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

test('every screen has no serious or critical violations, light and dark', async ({
  page,
  warden,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.goto(warden.url);
  await confirmServer(page, 'net');
  const client = await warden.connect('net');
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } });

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openScreen(page, 'Servers');
    await expect(serverItem(page, 'net').locator('[data-run-state]')).toHaveText('Ready');
    await expect(serverItem(page, 'bare').locator('[data-isolation]')).toHaveText('Not sandboxed');
    await snap({ page, testInfo }, `servers-${scheme}`);
    await expectNoViolations(page, `servers (${scheme})`);

    await serverItem(page, 'net').getByRole('button', { name: 'Edit policy of net' }).click();
    for (const tab of ['Isolation and folders', 'Network', 'Environment', 'Limits', 'Tools']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
      await snap({ page, testInfo }, `policy-${tab.split(' ')[0]!.toLowerCase()}-${scheme}`);
      await expectNoViolations(page, `policy ${tab} (${scheme})`);
    }

    await openScreen(page, 'Inbox');
    await snap({ page, testInfo }, `inbox-${scheme}`);
    await expectNoViolations(page, `inbox (${scheme})`);

    await openScreen(page, 'Audit log');
    const options = page.getByRole('option');
    await expect(options.filter({ hasText: 'tool echo' }).first()).toBeVisible();
    await options.filter({ hasText: 'tool echo' }).first().click();
    await expect(page.getByRole('complementary', { name: 'Event detail' })).toContainText('mcp.');
    await snap({ page, testInfo }, `audit-${scheme}`);
    await expectNoViolations(page, `audit (${scheme})`);

    for (const screen of ['Import', 'Clients']) {
      await openScreen(page, screen);
      await expect(page.locator('main h2').first()).toBeVisible();
      await snap({ page, testInfo }, `${screen.toLowerCase()}-${scheme}`);
      await expectNoViolations(page, `${screen} (${scheme})`);
    }

    await openScreen(page, 'Host status');
    await expect(page.locator('[data-backend]')).toBeVisible();
    await snap({ page, testInfo }, `host-${scheme}`);
    await expectNoViolations(page, `host (${scheme})`);
  }
});

test('host status shows the backend, the checks and what is enforceable', async ({
  panel: page,
  warden,
}) => {
  await openScreen(page, 'Host status');
  const backend = page.locator('[data-backend]');
  await expect(backend).toContainText('Sandbox backend:');
  // The same report `warden doctor --json` gives, whatever this host can do.
  const { wardenCli } = await import('./fixtures');
  const doctor = JSON.parse(await wardenCli(warden.home, ['doctor', '--json'])) as {
    backend: { name: string; available: boolean };
    checks: Array<{ id: string; label: string; status: string; remedy?: string }>;
  };
  await expect(backend).toHaveAttribute('data-backend', doctor.backend.name);
  await expect(backend).toHaveAttribute('data-available', String(doctor.backend.available));
  for (const c of doctor.checks) {
    const item = page.locator(`[data-check="${c.id}"]`);
    await expect(item).toContainText(c.label);
    await expect(item).toHaveAttribute('data-status', c.status);
    if (c.remedy) await expect(item).toContainText(c.remedy);
  }
  // Limits by their names, never by their policy keys.
  await expect(page.getByRole('table')).toContainText('Memory (MB)');
  await expect(page.getByRole('table')).not.toContainText('memoryMb');
});

test('navigation, policy tabs and the audit list work from the keyboard with visible focus', async ({
  page,
  warden,
}) => {
  await page.goto(warden.url);
  await expect(serverItem(page, 'net')).toBeVisible();
  const focusOutline = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? getComputedStyle(el).outlineStyle : 'none';
    });

  // From a fresh page, Tab reaches the main navigation first; Enter opens the audit log.
  await page.reload();
  await expect(serverItem(page, 'net')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Servers' })).toBeFocused();
  expect(await focusOutline()).not.toBe('none');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Audit log' })).toBeFocused();
  await page.keyboard.press('Enter');
  const list = page.getByRole('listbox', { name: 'Audit events, newest first' });
  await expect(list.getByRole('option').first()).toBeVisible();
  await list.focus();
  expect(await focusOutline()).not.toBe('none');
  await page.keyboard.press('ArrowDown');
  await expect(list.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(list.getByRole('option').nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('complementary', { name: 'Event detail' })).toContainText('#');

  // Policy tabs move with the arrow keys; the isolation switch toggles with Space.
  await openScreen(page, 'Servers');
  await serverItem(page, 'net').getByRole('button', { name: 'Edit policy of net' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('tab', { name: 'Isolation and folders' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Network' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'Network' })).toHaveAttribute('aria-selected', 'true');
  expect(await focusOutline()).not.toBe('none');
  await page.keyboard.press('ArrowLeft');
  const sandbox = page.getByRole('switch', { name: 'Sandbox isolation' });
  await sandbox.focus();
  await page.keyboard.press('Space');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
});
