/**
 * Flow 2 in Chromium against a real `warden serve`: network grants for a sandboxed server in
 * `ask` mode, decided in the inbox; and a tool call held for approval, decided there too (once,
 * and "always" for an edited argument pattern).
 */
import type { Page } from '@playwright/test';
import { seriousA11yViolations } from './axe';
import { type WardenServer, expect, netToolSeed, test as base } from './fixtures';
import { openConfirmed, openScreen, resultText, snap } from './flows/flow-app';
import { grantsFlow } from './flows/grants-flow';
import { type HttpTarget, startHttpTarget } from './flows/http-targets';

const test = base.extend<{ targets: [HttpTarget, HttpTarget] }>({
  seedServers: async ({ netToolBundle }, use) => {
    await use([netToolSeed(netToolBundle, 'net', '--net', 'ask', '--allow-address', '127.0.0.1')]);
  },
  // eslint-disable-next-line no-empty-pattern
  targets: async ({}, use) => {
    const a = await startHttpTarget();
    const b = await startHttpTarget();
    await use([a, b]);
    await Promise.all([a.close(), b.close()]);
  },
});

/** Opens `net` in the panel, connects a client, and turns on "ask before each call" for echo. */
async function askBeforeEachEcho(page: Page, warden: Pick<WardenServer, 'url' | 'connect'>) {
  const row = await openConfirmed(page, warden.url, 'net');
  const client = await warden.connect('net');
  await client.listTools();
  await row.getByRole('button', { name: 'Edit policy of net' }).click();
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('switch', { name: 'Ask before each call echo' }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
  return client;
}

/** Calls echo with `message` and denies it in the inbox in one click; the client's answer. */
async function denyEcho(
  page: Page,
  client: Awaited<ReturnType<typeof askBeforeEachEcho>>,
  message: string,
) {
  // Attached at once: the refusal may arrive before the test awaits it.
  const denied = client.callTool({ name: 'echo', arguments: { message } }).then(
    (r) => r as Record<string, unknown>,
    (e: unknown) => ({ error: String(e) }),
  );
  await page
    .getByRole('listitem', { name: 'net wants to call echo' })
    .getByRole('button', { name: 'Deny call to echo' })
    .click();
  return denied;
}

test('flow 2: allow for this session, then deny; both decisions in the audit log', async ({
  page,
  warden,
  targets,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.goto(warden.url);
  await grantsFlow({ page, ...warden, testInfo }, targets[0], targets[1]);
});

test('a tool that asks before each call waits in the inbox with its arguments', async ({
  page,
  warden,
}, testInfo) => {
  const client = await askBeforeEachEcho(page, warden);

  const call = client.callTool({ name: 'echo', arguments: { message: 'please approve me' } });
  await openScreen(page, 'Inbox');
  const item = page.getByRole('listitem', { name: 'net wants to call echo' });
  await expect(item).toBeVisible();
  await expect(item.getByLabel('Arguments of echo')).toContainText(
    '"message": "please approve me"',
  );
  await expect(item.locator('.countdown')).toHaveText(/refused automatically in \d+ s/);
  await snap({ page, testInfo }, 'approval-pending');
  const violations = await seriousA11yViolations(page);
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
  await item.getByRole('button', { name: 'Allow once to echo' }).click();
  expect(resultText(await call)).toBe('please approve me');

  const r = await denyEcho(page, client, 'not this one');
  expect(JSON.stringify(r)).toContain('not approved');
  expect(JSON.stringify(r)).not.toContain('"text":"not this one"');
});

test('an approval card says why it asks; "always" saves the edited pattern, and a matching call no longer waits', async ({
  page,
  warden,
}) => {
  test.setTimeout(120_000);
  const client = await askBeforeEachEcho(page, warden);

  const call = client.callTool({ name: 'echo', arguments: { message: 'note 1' } });
  await openScreen(page, 'Inbox');
  const item = page.getByRole('listitem', { name: 'net wants to call echo' });
  await expect(item.getByText('This tool asks before each call.')).toBeVisible();
  await item.getByText('Argument patterns for “Always allow”').click();
  const field = item.getByLabel('message');
  await expect(field).toHaveValue('match=note 1');
  await field.fill('match=note [0-9]+');
  await item.getByRole('button', { name: 'Always allow these arguments to echo' }).click();
  expect(resultText(await call)).toBe('note 1');

  // Saved in the policy: a matching call goes through without a card, another one waits.
  expect(
    resultText(await client.callTool({ name: 'echo', arguments: { message: 'note 22' } })),
  ).toBe('note 22');
  expect(JSON.stringify(await denyEcho(page, client, 'something else'))).toContain('not approved');
});
