/**
 * The Tools tab edits argument rules and the credential mode: a rule is checked as it is typed,
 * added, saved with the policy, and then refuses a call through the gateway naming itself; the
 * default mode chosen back leaves nothing to save.
 */
import { dirname } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { resultText, serverItem, snap } from './flows/flow-app';

test.use({
  seedServers: async ({ netToolBundle }, use) =>
    use([['tooly', '--ro', dirname(netToolBundle), '--', process.execPath, netToolBundle]]),
  // Confirmed already: this test is about the Tools tab, not the first start.
  // eslint-disable-next-line no-empty-pattern
  editSeededConfig: ({}, use) =>
    use((config) => config.servers.forEach((s) => (s.acknowledged = true))),
});

test('the Tools tab edits argument rules, which then refuse calls through the gateway', async ({
  page,
  warden,
}, testInfo) => {
  await page.goto(warden.url);
  await serverItem(page, 'tooly').getByRole('button', { name: 'Edit policy of tooly' }).click();
  await page.getByRole('tab', { name: 'Tools' }).click();
  // The default mode chosen back is no change: nothing to save.
  const credentials = page.getByLabel('Credentials in results and calls');
  await credentials.selectOption('off');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await credentials.selectOption('redact');
  await expect(page.getByText('No unsaved changes', { exact: true })).toBeVisible();

  const field = page.getByLabel('Argument rules', { exact: true }).last();
  await field.fill('echo:message');
  await expect(page.getByText('expected TOOL:ARG:RULE')).toBeVisible();
  await field.fill('echo:message:match=(');
  await expect(page.getByText(/not a valid RE2 pattern/)).toBeVisible();
  await field.fill('echo:message:max-length=5');
  await page.getByRole('button', { name: 'Add to Argument rules' }).click();
  await expect(page.getByRole('list', { name: 'Argument rules' })).toContainText(
    'echo:message:max-length=5',
  );
  await credentials.selectOption('block');
  await snap({ page, ...warden, testInfo }, 'tools-tab-arg-rules');
  await page.getByRole('button', { name: 'Save policy' }).click();

  await expect
    .poll(async () => {
      const config = await warden.readConfig();
      return (config.servers[0] as unknown as { policy: { tools: unknown } }).policy.tools;
    })
    .toMatchObject({
      argRules: [{ tool: 'echo', arg: 'message', rule: 'max-length=5' }],
      credentials: 'block',
    });

  const client = await warden.connect('tooly');
  expect(
    resultText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
  ).toContain('hi');
  await expect(
    client.callTool({ name: 'echo', arguments: { message: 'far too long' } }),
  ).rejects.toThrow(/argument rule echo:message:max-length=5/);
});

/**
 * Tabs from the Tools tab's last field to the credential mode at this viewport and returns the
 * select, the hint that describes it, and how many lines that hint wraps to.
 */
async function tabToCredentialMode(
  page: Page,
  url: string,
  viewport: { width: number; height: number },
) {
  await page.setViewportSize(viewport);
  await page.goto(url);
  await serverItem(page, 'tooly').getByRole('button', { name: 'Edit policy of tooly' }).click();
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByLabel('Allowed calls', { exact: true }).last().focus();
  // The next stop after the field (its Add button is disabled while the field is empty).
  await page.keyboard.press('Tab');
  const credentials = page.getByLabel('Credentials in results and calls');
  await expect(credentials).toBeFocused();
  const hint = page.locator('#' + (await credentials.getAttribute('aria-describedby'))!);
  const lines = await hint.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set<number>();
    const rects = range.getClientRects();
    for (let i = 0; i < rects.length; i++) tops.add(Math.round(rects[i]!.top));
    return tops.size;
  });
  return { credentials, hint, lines };
}

/** Both boxes end above the save bar. */
async function expectAboveSaveBar(page: Page, shown: Locator[]) {
  const bar = (await page.locator('.save-bar').boundingBox())!;
  for (const locator of shown) {
    const box = (await locator.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(bar.y);
  }
}

test('a control reached with the keyboard is scrolled clear of the save bar', async ({
  page,
  warden,
}) => {
  const { credentials, hint } = await tabToCredentialMode(page, warden.url, {
    width: 1280,
    height: 720,
  });
  // The select and the hint that describes it (what each mode does) both show above the bar.
  await expectAboveSaveBar(page, [credentials, hint]);
});

test('a hint that wraps to many lines comes along above the save bar too', async ({
  page,
  warden,
}) => {
  const { credentials, hint, lines } = await tabToCredentialMode(page, warden.url, {
    width: 360,
    height: 560,
  });
  // At this width the hint wraps to seven lines: more than the scroll padding leaves room for.
  expect(lines).toBeGreaterThanOrEqual(7);
  await expectAboveSaveBar(page, [credentials, hint]);
});
