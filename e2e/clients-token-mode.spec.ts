/**
 * Connecting a client over HTTP in Chromium against a real `warden serve`: the gateway token goes
 * into a config file other users could read (0644, as editors make them), so Warden makes it the
 * user's alone and the Clients screen says so.
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, repoRoot, test } from './fixtures';
import { openScreen, snapBoth } from './flows/flow-app';

const memory = join(repoRoot, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

test('a config file given a gateway token is made 0600, and the screen says so', async ({
  page,
  warden,
}, testInfo) => {
  const dir = join(warden.home, 'client');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'mcp.json');
  const doc = { servers: { memory: { command: process.execPath, args: [memory] } } };
  await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
  await chmod(file, 0o644);

  await page.goto(warden.url);
  await openScreen(page, 'Import');
  await page.getByLabel('Client', { exact: true }).selectOption('vscode');
  await page.getByLabel(/Config file/).fill(file);
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: 'Import 1 server' }).click();
  await expect(page.getByRole('status')).toContainText('Imported');

  await openScreen(page, 'Clients');
  await page.getByLabel('Client', { exact: true }).selectOption('vscode');
  await page.getByLabel(/Config file/).fill(file);
  await page.getByLabel('How the client reaches Warden').selectOption('http');
  await page.getByRole('button', { name: 'Preview changes' }).click();
  await page.getByRole('button', { name: /^Connect / }).click();
  const status = page.getByRole('status');
  await expect(status).toContainText(
    `${file} was mode 0644, open to other users; it is 0600 now, since it holds Warden's gateway token`,
  );
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  await snapBoth(page, status, 'token-file-narrowed', testInfo);
});
