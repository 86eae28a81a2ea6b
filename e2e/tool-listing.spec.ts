/**
 * A server updated without one of its tools, in Chromium against a real `warden serve`: the next
 * whole listing leaves the pinned tool out, the Tools tab and the detail screen say so beside it,
 * and forgetting its pin takes it off the list.
 */
import { expect, netToolSeed, test as base } from './fixtures';
import { openConfirmed, openScreen, setVariableAndSave, snapBoth } from './flows/flow-app';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([netToolSeed(netToolBundle, 'net')]);
  },
});

test('a pinned tool the server no longer lists is marked, and its pin can be forgotten', async ({
  page,
  warden,
}, testInfo) => {
  const net = await openConfirmed(page, warden.url, 'net');
  const first = await warden.connect('net');
  expect((await first.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'fetch_url']);
  await first.close();

  await net.getByRole('button', { name: 'Edit policy of net' }).click();
  await page.getByRole('tab', { name: 'Tools' }).click();
  const fetchUrl = page.locator('[data-tool="fetch_url"]');
  await expect(fetchUrl).toBeVisible();
  await expect(fetchUrl.locator('[data-unlisted]')).toHaveCount(0);
  await setVariableAndSave(page, 'TOOL_GONE', '1');

  const second = await warden.connect('net');
  expect((await second.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
  await page.getByRole('tab', { name: 'Tools' }).click();
  await expect(fetchUrl).toContainText('not listed');
  await expect(fetchUrl.locator('[data-unlisted]')).toContainText(
    'Left out of the server’s tool listings since ',
  );
  await expect(page.locator('[data-tool="echo"] [data-unlisted]')).toHaveCount(0);
  await snapBoth(page, fetchUrl, 'tool-unlisted', testInfo);
  // The server's detail screen says so too.
  await openScreen(page, 'Servers');
  await net.getByRole('button', { name: 'Details of net' }).click();
  await expect(page.locator('.tool-list [data-tool="fetch_url"]')).toContainText('not listed');
  await expect(page.locator('.tool-list [data-tool="echo"]')).not.toContainText('not listed');
  await openScreen(page, 'Servers');
  await net.getByRole('button', { name: 'Edit policy of net' }).click();
  await page.getByRole('tab', { name: 'Tools' }).click();

  await fetchUrl.getByRole('button', { name: 'Forget the pinned definition of fetch_url' }).click();
  await fetchUrl.getByRole('button', { name: 'Forget', exact: true }).click();
  await expect(fetchUrl).toHaveCount(0);
  const config = (await warden.readConfig()) as unknown as {
    servers: Array<{ name: string; policy: { tools: { pinned: Record<string, unknown> } } }>;
  };
  expect(Object.keys(config.servers.find((s) => s.name === 'net')!.policy.tools.pinned)).toEqual([
    'echo',
  ]);
});
