/**
 * The servers list as a user works it, against a real `warden serve` with sandboxed servers: the
 * sandbox switch, folders and domains changed from the row (persisted, audited, shown, undoable),
 * a tool call showing up in the row, and a server that cannot start showing its real reason and
 * the fix that makes it start.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type WardenServer, expect, netToolSeed, test as base, wardenCli } from './fixtures';
import { openConfirmed, resultText, serverItem, snap } from './flows/flow-app';

const test = base.extend({
  seedServers: async ({ netToolBundle }, use) => {
    await use([
      netToolSeed(netToolBundle, 'net'),
      // Added with its folder, which is then taken out of config.json by hand (below): its
      // script lies outside every folder the sandbox shows. `servers add` would refuse that.
      netToolSeed(netToolBundle, 'outside'),
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

type Row = { kind: string; event: { changed?: string[]; revisionAfter?: number; client?: string } };

async function auditRows(home: string, kind: string): Promise<Row[]> {
  const out = await wardenCli(home, ['audit', 'list', '--kind', kind, '--json']);
  return (JSON.parse(out) as { rows: Row[] }).rows;
}

interface NetPolicy {
  filesystem: { roots: { path: string; access: string }[] };
  network: { mode: string; allow: string[]; deny: string[] };
}

/** The policy of server `net` as config.json holds it. */
async function netPolicy(warden: Pick<WardenServer, 'readConfig'>): Promise<NetPolicy> {
  const { servers } = await warden.readConfig();
  return (servers.find((s) => s.name === 'net') as unknown as { policy: NetPolicy }).policy;
}

test('the sandbox switch on the row asks before turning off, saves a revision, is audited and can be undone', async ({
  panel: page,
  warden,
}, testInfo) => {
  const row = serverItem(page, 'net');
  const sandbox = row.getByRole('switch', { name: 'Sandbox for net' });
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');

  // Cancelling keeps the sandbox.
  await sandbox.click();
  const dialog = page.getByRole('dialog', { name: 'Turn off the sandbox for "net"?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
  // The dialog is gone from the row, and the focus is back on the switch that opened it.
  await expect(sandbox).toBeFocused();

  await sandbox.click();
  await dialog.getByRole('button', { name: 'Turn off sandbox' }).click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'false');
  await expect(row.locator('[data-isolation]')).toHaveText('Not sandboxed');
  await expect(row).toHaveClass(/server-unsandboxed/);
  await expect(page.locator('[data-toast]')).toContainText('Saved as revision 2.');
  await snap({ page, testInfo }, 'row-sandbox-off');
  const config = await warden.readConfig();
  expect(config.servers.find((s) => s.name === 'net')).toMatchObject({
    policy: { isolation: 'off' },
    revision: 2,
  });
  await expect
    .poll(async () => (await auditRows(warden.home, 'policy.changed')).at(0)?.event)
    .toMatchObject({ revisionAfter: 2, changed: ['policy.isolation'] });

  // Undo puts the sandbox back, as a new revision; turning on asks nothing.
  await page.locator('[data-toast]').getByRole('button', { name: 'Undo' }).click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
  await expect(row.locator('[data-isolation]')).toHaveText('Sandboxed');
  await sandbox.click();
  await dialog.getByRole('button', { name: 'Turn off sandbox' }).click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'false');
  await sandbox.click();
  await expect(dialog).toBeHidden();
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
  await page.reload();
  await expect(
    serverItem(page, 'net').getByRole('switch', { name: 'Sandbox for net' }),
  ).toHaveAttribute('aria-checked', 'true');
  const revisions = (await auditRows(warden.home, 'policy.changed')).filter((r) =>
    r.event.changed?.includes('policy.isolation'),
  );
  expect(revisions.map((r) => r.event.revisionAfter)).toEqual([5, 4, 3, 2]);
});

test('a folder and a domain are added, changed and removed from the row', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  await page.goto(warden.url);
  const row = serverItem(page, 'net');
  const policyOf = () => netPolicy(warden);

  // A folder: a relative path is refused as it is typed; added read-only; then read/write.
  await row.getByRole('button', { name: 'Folder for net' }).click();
  const path = row.getByLabel('Folder to add to net');
  await path.fill('relative/dir');
  await expect(row.getByText('must be an absolute path')).toBeVisible();
  await expect(row.getByRole('button', { name: 'Add folder to net' })).toBeDisabled();
  await path.fill(testInfo.outputDir);
  await path.press('Enter');
  const chip = row.locator('.chip-folder', { hasText: testInfo.outputDir });
  const expectRoot = (access: string) =>
    expect
      .poll(async () => (await policyOf()).filesystem.roots)
      .toContainEqual({ path: testInfo.outputDir, access });
  await expect(chip).toContainText('read-only');
  await expectRoot('read');
  await chip.getByRole('button', { name: `writable ${testInfo.outputDir}` }).click();
  await expect(chip).toContainText('read/write');
  await expectRoot('write');

  // A domain: checked as it is typed; allowing one turns the network on (allowlist).
  await row.getByRole('button', { name: 'Domain for net' }).click();
  const domain = row.getByLabel('Domain for net');
  await domain.fill('not a domain');
  await expect(domain).toHaveAttribute('aria-invalid', 'true');
  await expect(row.getByRole('button', { name: 'Allow domain for net' })).toBeDisabled();
  await domain.fill('API.Example.com');
  await row.getByRole('button', { name: 'Allow domain for net' }).click();
  await expect(row.locator('.chip-allow[data-domain="api.example.com"]')).toBeVisible();
  await expect(row.getByLabel('Network of net')).toHaveValue('allowlist');
  await row.getByRole('button', { name: 'Domain for net' }).click();
  await row.getByLabel('Domain for net').fill('*.tracker.example');
  await row.getByRole('button', { name: 'Deny domain for net' }).click();
  await expect(row.locator('.chip-deny[data-domain="*.tracker.example"]')).toBeVisible();
  await expect
    .poll(async () => (await policyOf()).network)
    .toMatchObject({
      mode: 'allowlist',
      allow: ['api.example.com'],
      deny: ['*.tracker.example'],
    });
  await snap({ page, testInfo }, 'row-folder-domain');

  // Removing both.
  await row.getByRole('button', { name: `Remove folder ${testInfo.outputDir} from net` }).click();
  await row
    .getByRole('button', { name: 'Remove api.example.com from allowed domains of net' })
    .click();
  await expect(row.locator('.chip-allow')).toHaveCount(0);
  await expect.poll(policyOf).toMatchObject({
    filesystem: { roots: [{ path: dirname(netToolBundle), access: 'read' }] },
    network: { allow: [], deny: ['*.tracker.example'] },
  });
});

test("a folder typed into the row's path field is added and removed, each saved and audited", async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const folder = testInfo.outputPath('project');
  await mkdir(folder, { recursive: true });
  await page.goto(warden.url);
  const row = serverItem(page, 'net');
  const roots = async () => (await netPolicy(warden)).filesystem.roots;
  const lastChange = async () => (await auditRows(warden.home, 'policy.changed')).at(0)?.event;

  // In a browser there is no system folder picker: the path is typed.
  await expect(row.getByRole('button', { name: 'Choose…' })).toHaveCount(0);
  await row.getByRole('button', { name: 'Folder for net' }).click();
  await row.getByLabel('Folder to add to net').fill(folder);
  await row.getByRole('button', { name: 'Add folder to net' }).click();
  const chip = row.locator('.chip-folder', { hasText: folder });
  await expect(chip).toContainText('read-only');
  await expect(page.locator('[data-toast]')).toContainText('Saved as revision 2.');
  expect(await roots()).toEqual([
    { path: dirname(netToolBundle), access: 'read' },
    { path: folder, access: 'read' },
  ]);
  await expect
    .poll(lastChange)
    .toMatchObject({ revisionAfter: 2, changed: ['policy.filesystem.roots'] });

  // What the row shows after a reload is what the core saved.
  await page.reload();
  await expect(serverItem(page, 'net').locator('.chip-folder', { hasText: folder })).toContainText(
    'read-only',
  );
  await serverItem(page, 'net')
    .getByRole('button', { name: `Remove folder ${folder} from net` })
    .click();
  await expect(serverItem(page, 'net').locator('.chip-folder', { hasText: folder })).toHaveCount(0);
  await expect(page.locator('[data-toast]')).toContainText('Saved as revision 3.');
  expect(await roots()).toEqual([{ path: dirname(netToolBundle), access: 'read' }]);
  await expect
    .poll(lastChange)
    .toMatchObject({ revisionAfter: 3, changed: ['policy.filesystem.roots'] });
});

test("a tool call shows up in the server's row as it happens", async ({ page, warden }) => {
  const row = await openConfirmed(page, warden.url, 'net');
  await expect(row.locator('.activity-none')).toBeVisible();
  const client = await warden.connect('net');
  const r = await client.callTool({ name: 'echo', arguments: { message: 'from the row test' } });
  expect(resultText(r)).toContain('from the row test');
  const activity = row.getByRole('list', { name: 'Recent activity of net' });
  await expect(activity.locator('[data-activity="call"]').first()).toContainText('echo');
  await expect(activity.locator('[data-activity="call"]').first()).toContainText('ok');
  await expect(row.locator('[data-counts]')).toContainText('1 call');
  await expect(row.locator('[data-run-state]')).toHaveText('Ready');
});

test('a server that cannot start shows its real reason and the fix, which makes it start', async ({
  page,
  warden,
  netToolBundle,
}, testInfo) => {
  const row = await openConfirmed(page, warden.url, 'outside');
  await row.getByRole('button', { name: 'Start outside' }).click();
  await expect(row.locator('[data-run-state]')).toHaveText('Failed', { timeout: 30_000 });
  const failure = row.locator('[data-failure]');
  // Node's own words, not its version footer.
  await expect(failure.getByLabel('What outside wrote to stderr')).toContainText(
    `Error: Cannot find module '${netToolBundle}'`,
  );
  await expect(failure.getByLabel('What outside wrote to stderr')).not.toContainText('Node.js v');
  const fix = failure.getByRole('button', {
    name: `Add ${dirname(netToolBundle)} (read only) for outside`,
  });
  await expect(fix).toBeVisible();
  await snap({ page, testInfo }, 'row-failed-with-fix');
  await fix.click();
  await expect(row.locator('.chip-folder', { hasText: dirname(netToolBundle) })).toBeVisible();
  await row.getByRole('button', { name: 'Start outside' }).click();
  await expect(row.locator('[data-run-state]')).toHaveText('Ready', { timeout: 30_000 });
  await expect(row.locator('[data-failure]')).toHaveCount(0);
});

test.describe('a refused network destination', () => {
  test.use({
    seedServers: async ({ netToolBundle }, use) => {
      await use([netToolSeed(netToolBundle, 'web', '--net', 'allowlist')]);
    },
  });

  test('shows in the row as refused, with a one-click grant saved as a revision', async ({
    page,
    warden,
  }) => {
    const row = await openConfirmed(page, warden.url, 'web');
    const client = await warden.connect('web');
    const r = await client.callTool({
      name: 'fetch_url',
      arguments: { url: 'http://blocked.example.org/' },
    });
    expect(resultText(r)).toContain("is not in this server's network.allow");
    const activity = row.getByRole('list', { name: 'Recent activity of web' });
    await expect(activity.locator('[data-activity="network"]').first()).toContainText(
      'blocked.example.org:80',
    );
    await expect(activity.locator('[data-activity="network"]').first()).toContainText('refused');
    await expect(row.locator('[data-counts]')).toContainText('1 refused');
    await row.getByRole('button', { name: 'Allow blocked.example.org for web' }).click();
    await expect(row.locator('.chip-allow[data-domain="blocked.example.org"]')).toBeVisible();
    await expect
      .poll(async () => {
        const web = (await warden.readConfig()).servers.find(
          (s) => s.name === 'web',
        ) as unknown as {
          policy: { network: { allow: string[] } };
        };
        return web.policy.network.allow;
      })
      .toEqual(['blocked.example.org']);
    await expect(
      row.getByRole('button', { name: 'Allow blocked.example.org for web' }),
    ).toHaveCount(0);
  });
});
