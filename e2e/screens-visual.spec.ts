/**
 * Screenshot tests of every screen at 1280×800, light and dark, against a real `warden serve`:
 * a ready sandboxed server used by a client, an unsandboxed one, one that cannot start; and the
 * Policy screen under a managed policy, with a server excepted from a hidden path; the inbox with
 * a network ask, a folder offered by a client and a tool call awaiting approval. What
 * changes from run to run (times, temporary paths, tokens, ids) is masked; everything else must
 * match the committed baseline.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { seriousA11yViolations } from './axe';
import { expect, repoRoot, test as base } from './fixtures';
import { confirmServer, openScreen, serverItem } from './flows/flow-app';
import { startHttpTarget } from './flows/http-targets';
import { withManagedServe } from './flows/managed-serve';
import { connectWithRoot } from './flows/roots-client';
import { netToolServer } from './flows/seed-servers';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([
      netToolServer(
        'net',
        netToolBundle,
        ...['--net', 'allowlist', '--allow', 'api.example.com', '--deny', '*.tracker.example'],
      ),
      ['bare', '--isolation', 'off', '--', '/usr/bin/env'],
      // Its folder is taken out of config.json below, so that it fails to start.
      netToolServer('outside', netToolBundle),
    ]);
  },
  // eslint-disable-next-line no-empty-pattern
  editSeededConfig: async ({}, use) => {
    await use((config) => {
      for (const server of config.servers)
        if (server.name === 'outside') server.policy.filesystem.roots = [];
    });
  },
});

/** Parts that differ between runs: temporary paths, times, ids, the token. */
function volatile(page: Page) {
  return [
    page.locator('code'),
    page.locator('.chip-folder .chip-text'),
    page.locator('.c-time'),
    page.locator('.activity-time'),
    page.locator('.failure-lines'),
    page.locator('.failure-fix'),
    page.locator('.snippet-json'),
    page.locator('.instance-id'),
    page.locator('.instance-pid'),
    page.locator('[data-root]'),
    page.locator('.countdown'),
  ];
}

// A masked text of varying glyph widths can move an edge pixel of what it wraps; a few pixels are
// allowed for that, nothing that a changed layout, colour or word would stay under.
async function shot(page: Page, name: string, fullPage = false, mask = volatile(page)) {
  await expect(page).toHaveScreenshot(`${name}.png`, {
    mask,
    maxDiffPixels: 24,
    fullPage,
  });
  // And nothing serious for assistive technology on the same screen.
  const violations = await seriousA11yViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

test('every screen matches its baseline, light and dark', async ({ page, warden }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(warden.url);
  for (const name of ['net', 'outside']) {
    await serverItem(page, name)
      .getByRole('button', { name: `I have checked this command for ${name}` })
      .click();
  }
  const client = await warden.connect('net');
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  await serverItem(page, 'outside').getByRole('button', { name: 'Start outside' }).click();
  await expect(serverItem(page, 'outside').locator('[data-run-state]')).toHaveText('Failed', {
    timeout: 30_000,
  });
  await expect(serverItem(page, 'outside').locator('.failure-fix')).toBeVisible();
  await expect(serverItem(page, 'net').locator('[data-counts]')).toContainText('1 call');

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openScreen(page, 'Servers');
    await page.mouse.move(0, 0);
    await shot(page, `servers-${scheme}`);

    await serverItem(page, 'net').getByRole('button', { name: 'Details of net' }).click();
    await expect(page.locator('[data-tool="echo"]')).toBeVisible();
    await shot(page, `server-detail-${scheme}`);

    await openScreen(page, 'Servers');
    await serverItem(page, 'net').getByRole('button', { name: 'Edit policy of net' }).click();
    await expect(page.getByRole('tab', { name: 'Network' })).toBeVisible();
    await shot(page, `policy-${scheme}`);

    await openScreen(page, 'Inbox');
    await shot(page, `inbox-${scheme}`);

    // Only policy changes: the same rows on every run (their times are masked).
    await openScreen(page, 'Audit log');
    await page.getByLabel('Kind').selectOption('policy.changed');
    const events = page.getByRole('listbox', { name: 'Audit events, newest first' });
    // Three servers added, outside's folders edited in config.json before the core started,
    // and the tools of net pinned once its client listed them.
    await expect(events.getByRole('option')).toHaveCount(5);
    await expect(events.getByText('edited in config.json')).toHaveCount(1);
    await expect(page.locator('[data-telemetry="off"]')).toBeVisible();
    await shot(page, `audit-${scheme}`);
    await page.getByRole('button', { name: 'Clear filters' }).click();

    await openScreen(page, 'Import');
    await shot(page, `import-${scheme}`);

    await openScreen(page, 'Clients');
    await expect(page.locator('[data-client]').first()).toBeVisible();
    await shot(page, `clients-${scheme}`);

    await openScreen(page, 'Host status');
    await expect(page.locator('[data-backend]')).toBeVisible();
    await shot(page, `host-${scheme}`);
  }
});

test('the Policy screen matches its baseline, light and dark', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const managed = {
    isolation: { allowOff: false, allowBestEffort: false },
    network: { deny: ['*.blocked.test'], allow: ['*.corp.example', 'api.github.com'] },
    limits: { memoryMb: 2048, wallSeconds: 3600 },
    hiddenPaths: ['~/work/secrets'],
    audit: { minRetentionDays: 180 },
  };
  const seeds = [['keys', '--unhide', '~/.aws', '--', 'cat']];
  await withManagedServe(page, { managed: JSON.stringify(managed), seeds }, async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await openScreen(page, 'Policy');
      await expect(page.locator('[data-managed-rule]').first()).toBeVisible();
      await expect(page.locator('[data-exceptions="keys"]')).toBeVisible();
      await page.mouse.move(0, 0);
      // The whole screen: the form and the exceptions lie below the fold.
      await shot(page, `parent-policy-${scheme}`, true);
    }
  });
});

/** A folder a client offers, long as real project paths are (the same on every run). */
const offered =
  '/tmp/warden-visual/home/alex/projects/acme-website/content/blog/2026/winter-launch';
const modules = join(repoRoot, 'node_modules');

const inboxTest = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await mkdir(offered, { recursive: true });
    const fs = join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js');
    await use([
      netToolServer('net', netToolBundle, '--net', 'ask', '--allow-address', '127.0.0.1'),
      ['files', '--ro', modules, '--', process.execPath, fs, modules],
    ]);
  },
  // eslint-disable-next-line no-empty-pattern
  editSeededConfig: async ({}, use) => {
    await use((config) => {
      // Every call of echo waits for approval; nothing expires while the shots are taken.
      for (const server of config.servers) {
        if (server.name !== 'net') continue;
        server.policy.tools.approval = ['echo'];
        server.policy.tools.approvalTimeoutSeconds = 600;
        server.policy.network.askTimeoutSeconds = 600;
      }
    });
  },
});

inboxTest('the inbox cards match their baseline, light and dark', async ({ page, warden }) => {
  inboxTest.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(warden.url);
  for (const name of ['net', 'files']) await confirmServer(page, name);
  const target = await startHttpTarget();
  const net = await warden.connect('net');
  await net.listTools();
  // Both calls wait for a decision; they end with the clients when the test does.
  const held = { timeout: 170_000 };
  const hold = (call: Promise<unknown>) => void call.catch(() => undefined);
  hold(
    net.callTool(
      { name: 'fetch_url', arguments: { url: `http://127.0.0.1:${target.port}/feed.xml` } },
      undefined,
      held,
    ),
  );
  hold(
    net.callTool(
      {
        name: 'echo',
        arguments: {
          message:
            'Summarise /home/alex/projects/acme-website/content/blog/2026/winter-launch/announcement-final-v3.md for the newsletter, keeping the customer quotes word for word',
        },
      },
      undefined,
      held,
    ),
  );
  const files = await connectWithRoot(warden.home, 'files', offered, 'Claude Desktop');
  try {
    await openScreen(page, 'Inbox');
    await expect(page.locator('[data-grant]')).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('[data-folder]')).toBeVisible({ timeout: 30_000 });
    const approval = page.getByRole('listitem', { name: 'net wants to call echo' });
    await expect(approval).toBeVisible({ timeout: 30_000 });
    await approval.getByText('Argument patterns for “Always allow”').click();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.mouse.move(0, 0);
      // The folder and the arguments are the same on every run: only ids, ports, times masked.
      await shot(page, `inbox-cards-${scheme}`, true, [
        page.locator('.instance-id'),
        page.locator('[data-dest]'),
        page.locator('.countdown'),
      ]);
    }
  } finally {
    await files.close();
    await target.close();
  }
});
