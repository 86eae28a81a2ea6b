/**
 * Flow 3: a client calls tools through the gateway; the calls appear in the audit log live; the
 * filter narrows them; the detail pane shows the redacted arguments; export of the current filter
 * produces exactly the rows shown; verify integrity reports an intact chain.
 */
import { readFile } from 'node:fs/promises';
import { expect } from '@playwright/test';
import { confirmServer, type FlowApp, openScreen, resultText, snap, snapBoth } from './flow-app';

export const SECRET = 's3cr3t-value-123';

export async function auditFlow(app: FlowApp): Promise<void> {
  const { page } = app;
  await confirmServer(page, 'calls');
  await openScreen(page, 'Audit log');
  const list = page.getByRole('listbox', { name: 'Audit events, newest first' });
  const options = list.getByRole('option');
  await expect(options.first()).toBeVisible();

  const client = await app.connect('calls');
  for (let i = 1; i <= 5; i++) {
    const r = await client.callTool({
      name: 'echo',
      arguments: { message: `call ${i} carries ${SECRET}` },
    });
    expect(resultText(r)).toContain(`call ${i}`);
  }
  // Live: the page was not reloaded, yet the calls are listed, newest first: each a request and
  // an answer, since Warden recorded the secret it redacted from each answer in between.
  await expect(options.filter({ hasText: 'tools/call, tool echo' })).toHaveCount(10);
  await snap(app, 'flow3-01-live');

  await page.getByLabel('Search').fill('echo');
  await page.getByLabel('Kind').selectOption('mcp.request');
  await expect(options).toHaveCount(5);
  await expect(options.first()).toContainText('tools/call, tool echo');
  const shownIds = await options.evaluateAll((els) => els.map((e) => Number(e.dataset.id)));

  // A call made now joins the filtered list live; one that does not match stays out.
  await client.callTool({ name: 'echo', arguments: { message: `call 6 carries ${SECRET}` } });
  await expect(options).toHaveCount(6);
  const ids = await options.evaluateAll((els) => els.map((e) => Number(e.dataset.id)));
  expect(ids.slice(1)).toEqual(shownIds);
  expect(ids[0]).toBeGreaterThan(shownIds[0]!);

  await options.first().click();
  const detail = page.getByRole('complementary', { name: 'Event detail' });
  const request = detail.getByLabel('Request (redacted)');
  await expect(request).toContainText('"tool": "echo"');
  await expect(request).toContainText('call 6 carries «secret:API_TOKEN»');
  await expect(detail).not.toContainText(SECRET);
  await expect(detail.getByLabel('Response (redacted)')).toBeVisible();
  await snap(app, 'flow3-02-filtered-detail');

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON Lines' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^warden-audit-.*\.jsonl$/);
  const text = await readFile(await download.path(), 'utf8');
  expect(text).not.toContain(SECRET);
  const exported = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: number; kind: string });
  // Oldest first in the file, newest first on screen: the same rows.
  expect(exported.map((r) => r.id).reverse()).toEqual(ids);
  expect(new Set(exported.map((r) => r.kind))).toEqual(new Set(['mcp.request']));
  await expect(page.getByText('Exported 6 rows.')).toBeVisible();

  await page.getByRole('button', { name: 'Verify integrity' }).click();
  await expect(page.locator('[data-verify="ok"]')).toContainText(/Intact: \d+ rows/);
  await snap(app, 'flow3-03-verified');

  // A call answered at once with nothing else recorded meanwhile is one row, request and answer.
  await page.getByLabel('Search').fill('');
  await page.getByLabel('Kind').selectOption('mcp.call');
  await client.callTool({ name: 'echo', arguments: { message: 'plain call 7' } });
  await expect(options).toHaveCount(1);
  await expect(options.first()).toContainText('tools/call, tool echo, 1 content block');
  await options.first().click();
  await expect(request).toContainText('plain call 7');
  await expect(detail.getByLabel('Response (redacted)')).toContainText('1 content block');
  await snapBoth(page, detail, 'flow3-04-call-detail', app.testInfo);
}
