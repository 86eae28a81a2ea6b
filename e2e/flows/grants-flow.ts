/**
 * Flow 2: a server in `ask` mode reaches a host the test runs; the grant appears in the inbox with
 * server, instance, destination and countdown; "allow for this session" lets the request through
 * and the next one goes through without asking; a second destination refused with "deny" fails;
 * both decisions are in the audit log.
 */
import { expect } from '@playwright/test';
import { confirmServer, type FlowApp, openScreen, resultText, serverItem, snap } from './flow-app';
import type { HttpTarget } from './http-targets';

export async function grantsFlow(app: FlowApp, a: HttpTarget, b: HttpTarget): Promise<void> {
  const { page } = app;
  await confirmServer(page, 'net');
  await expect(serverItem(page, 'net').getByRole('note')).toHaveCount(0);
  await openScreen(page, 'Inbox');
  await expect(page.getByText('No server is waiting to reach anywhere.')).toBeVisible();

  const client = await app.connect('net');
  /** Fetches `path` of `target` through the server; waits long enough for a grant decision. */
  const fetchHeld = (target: HttpTarget, path: string) =>
    client.callTool(
      { name: 'fetch_url', arguments: { url: `http://127.0.0.1:${target.port}${path}` } },
      undefined,
      { timeout: 90_000 },
    );
  const grantFor = (dest: string) =>
    page.getByRole('listitem', { name: `net wants to reach ${dest}` });
  const first = fetchHeld(a, '/first');
  const destA = `127.0.0.1:${a.port}`;
  const grantA = grantFor(destA);
  await expect(grantA).toBeVisible();
  await expect(grantA).toContainText(/instance [0-9a-f-]{8,}/);
  await expect(grantA.locator('.countdown')).toHaveText(/refused automatically in \d+ s/);
  await expect(page.getByRole('navigation', { name: 'Main' })).toContainText('Inbox1');
  await expect(page).toHaveTitle(/^\(1\) MCP Warden$/);
  expect(a.hits).toEqual([]);
  await snap(app, 'flow2-01-grant-pending');

  await grantA.getByRole('button', { name: `Allow for this session ${destA} for net` }).click();
  expect(resultText(await first)).toBe('status 200: hello from /first');
  await expect(grantA).toHaveCount(0);
  await expect(page).toHaveTitle('MCP Warden');

  // Same destination again: no new grant, straight through.
  const second = await client.callTool({
    name: 'fetch_url',
    arguments: { url: `http://127.0.0.1:${a.port}/second` },
  });
  expect(resultText(second)).toBe('status 200: hello from /second');
  expect(a.hits).toEqual(['/first', '/second']);
  await expect(page.getByText('No server is waiting to reach anywhere.')).toBeVisible();

  // Another destination, denied.
  const third = fetchHeld(b, '/denied');
  const destB = `127.0.0.1:${b.port}`;
  const grantB = grantFor(destB);
  await expect(grantB).toBeVisible();
  await snap(app, 'flow2-02-second-grant');
  await grantB.getByRole('button', { name: `Deny ${destB} for net`, exact: true }).click();
  const refused = await third;
  expect((refused as { isError?: boolean }).isError).toBe(true);
  expect(resultText(refused)).not.toContain('hello from');
  expect(b.hits).toEqual([]);

  // Both decisions, in the audit log.
  await openScreen(page, 'Audit log');
  await page.getByLabel('Kind').selectOption('grant.decided');
  const list = page.getByRole('listbox', { name: 'Audit events, newest first' });
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(list.getByRole('option').nth(0)).toContainText(`deny ${destB} by user`);
  await expect(list.getByRole('option').nth(1)).toContainText(`allow-session ${destA} by user`);
  await snap(app, 'flow2-03-audit-decisions');

  // One ask for A in all: the second request was not asked about.
  await page.getByLabel('Kind').selectOption('grant.requested');
  await expect(list.getByRole('option')).toHaveCount(2);
  await expect(list.getByRole('option').filter({ hasText: destA })).toHaveCount(1);
}
