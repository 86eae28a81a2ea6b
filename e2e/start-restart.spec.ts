/**
 * Start, restart and stop from the servers screen: Warden starts a sandboxed instance itself
 * (no AI client), which lists and pins the server's tools; restart gives it a new process in the
 * same session; stop ends it.
 */
import { dirname } from 'node:path';
import { expect, test as base } from './fixtures';
import { serverItem, snap } from './flows/flow-app';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([['net', '--ro', dirname(netToolBundle), '--', process.execPath, netToolBundle]]);
  },
});

test('start a server from the UI, restart its instance, stop it', async ({
  page,
  warden,
}, testInfo) => {
  await page.goto(warden.url);
  const net = serverItem(page, 'net');
  await expect(net.getByRole('button', { name: 'Start net' })).toHaveCount(0);
  await net.getByRole('button', { name: 'I have checked this command for net' }).click();
  await net.getByRole('button', { name: 'Start net' }).click();
  const instances = page.getByRole('list', { name: 'Instances of net' });
  await expect(instances).toContainText(/for warden: running, pid \d+, revision \d+, bwrap/);
  // Listing the tools pinned their definitions before any AI client saw them.
  await expect
    .poll(
      async () =>
        Object.keys(
          (
            (await warden.readConfig()) as unknown as {
              servers: { policy: { tools: { pinned: object } } }[];
            }
          ).servers[0]!.policy.tools.pinned,
        ).length,
    )
    .toBeGreaterThan(0);
  const pidOf = async () => /pid (\d+)/.exec((await instances.textContent()) ?? '')?.[1];
  const before = await pidOf();
  await instances.getByRole('button', { name: /^Restart instance/ }).click();
  await expect.poll(pidOf).not.toBe(before);
  await expect(instances).toContainText('running');
  await snap({ page, testInfo }, 'server-started');
  await instances.getByRole('button', { name: /^Stop instance/ }).click();
  await expect(page.getByRole('list', { name: 'Instances of net' })).toHaveCount(0);
});
