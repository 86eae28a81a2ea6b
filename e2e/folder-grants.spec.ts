/**
 * A folder grant in Chromium against a real `warden serve`: a client that declares roots offers
 * the sandboxed server-filesystem a folder outside its policy; the inbox shows it with the choices,
 * and "read-only for this session" lets the server list and read it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seriousA11yViolations } from './axe';
import { expect, repoRoot, test as base } from './fixtures';
import { openConfirmed, openScreen, resultText, snap } from './flows/flow-app';
import { connectWithRoot } from './flows/roots-client';

const modules = join(repoRoot, 'node_modules');

const test = base.extend<{ folders: { data: string; outside: string } }>({
  // eslint-disable-next-line no-empty-pattern
  folders: async ({}, use) => {
    const data = await mkdtemp(join(tmpdir(), 'warden-e2e-data-'));
    const outside = await mkdtemp(join(tmpdir(), 'warden-e2e-outside-'));
    await writeFile(join(outside, 'notes.txt'), 'from the client workspace\n');
    await use({ data, outside });
    await rm(data, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  },
  seedServers: async ({ folders }, use) => {
    const fs = join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js');
    await use([
      ['files', '--ro', folders.data, '--ro', modules, '--', process.execPath, fs, folders.data],
    ]);
  },
});

test('a client folder outside the policy waits in the inbox; read-only for this session lets the server read it', async ({
  page,
  warden,
  folders,
}, testInfo) => {
  test.setTimeout(120_000);
  await openConfirmed(page, warden.url, 'files');
  const client = await connectWithRoot(warden.home, 'files', folders.outside);
  try {
    const allowed = async () =>
      resultText(await client.callTool({ name: 'list_allowed_directories', arguments: {} }));
    await openScreen(page, 'Inbox');
    const item = page.getByRole('listitem', { name: `offers files the folder ${folders.outside}` });
    await expect(item).toBeVisible({ timeout: 30_000 });
    await expect(item.locator('.countdown')).toHaveText(/refused automatically in \d+ s/);
    expect(await allowed()).not.toContain(folders.outside);
    await snap({ page, testInfo }, 'folder-grant-pending');
    const violations = await seriousA11yViolations(page);
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
    await expect(item.getByRole('button')).toHaveText([
      /^Read-only for this session /,
      /^Read-write for this session /,
      /^Always read-only /,
      /^Always read-write /,
      /^Deny /,
    ]);
    await item
      .getByRole('button', { name: `Read-only for this session ${folders.outside} for files` })
      .click();
    await expect(item).toHaveCount(0);
    await expect
      .poll(() => allowed().catch(() => ''), { timeout: 60_000 })
      .toContain(folders.outside);
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(folders.outside, 'notes.txt') },
    });
    expect(resultText(read)).toContain('from the client workspace');
  } finally {
    await client.close();
  }
});
