/**
 * Start, restart and stop from the servers screen: Warden starts a sandboxed instance itself
 * (no AI client), which lists and pins the server's tools; restart gives it a new process in the
 * same session; stop ends it.
 */
import { expect, netToolSeed, test as base } from './fixtures';
import { serverItem, snap } from './flows/flow-app';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([netToolSeed(netToolBundle, 'net')]);
  },
});

test('start a server from the UI, restart its instance, stop it', async ({
  panel: page,
  warden,
}, testInfo) => {
  const net = serverItem(page, 'net');
  await expect(net.getByRole('button', { name: 'Start net' })).toHaveCount(0);
  await net.getByRole('button', { name: 'I have checked this command for net' }).click();
  await net.getByRole('button', { name: 'Start net' }).click();
  await expect(net.locator('[data-run-state]')).toHaveText('Ready');
  await net.getByRole('button', { name: 'Details of net' }).click();
  const instances = page.getByRole('table', { name: 'Instances of net' });
  const started = instances.getByRole('row', { name: /Warden \(started here\)/ });
  await expect(started).toContainText(/ready, pid \d+/);
  await expect(started).toContainText('bwrap');
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
  const pidOf = async () => /pid (\d+)/.exec((await started.textContent()) ?? '')?.[1];
  const before = await pidOf();
  await started.getByRole('button', { name: /^Restart instance/ }).click();
  await expect.poll(pidOf).not.toBe(before);
  await expect(started).toContainText('ready');
  await snap({ page, testInfo }, 'server-started');
  await started.getByRole('button', { name: /^Stop instance/ }).click();
  await expect(started).toContainText('exited: stopped by the user');
  await expect(started.getByRole('button')).toHaveCount(0);
  await expect(page.locator('[data-detail="net"] [data-run-state]')).toHaveText('Stopped');
});
