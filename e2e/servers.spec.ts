/**
 * The servers screen against a real `warden serve`: add a server through the form, reload and find
 * it again, find it in config.json; no serious accessibility violations; keyboard reachable.
 */
import { seriousA11yViolations } from './axe';
import { expect, test } from './fixtures';
import { addThroughForm } from './flows/flow-app';

test('adds a server through the form; it survives a reload and is in config.json', async ({
  page,
  warden,
}, testInfo) => {
  await page.goto(warden.url);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  await expect(page.getByText('No servers yet')).toBeVisible();
  await testInfo.attach('01-empty', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });

  await page.getByLabel('Name').fill('filesystem');
  await page.getByLabel('Command').fill('npx');
  await page
    .getByLabel('Arguments')
    .fill('-y\n@modelcontextprotocol/server-filesystem\n/home/me/My Projects');
  await page.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Added "filesystem"' })).toBeVisible();

  const row = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'filesystem' }) });
  await expect(row).toBeVisible();
  await expect(row.locator('code')).toContainText('npx -y @modelcontextprotocol/server-filesystem');
  await expect(row.locator('code')).toContainText('My Projects');
  // Sandboxed by default: the badge says so, or says truthfully why this host cannot sandbox it.
  const badge = row.locator('[data-isolation]');
  await expect(badge).toHaveText(/^(Sandboxed|Cannot sandbox here: .+)$/);
  await expect(badge).not.toHaveAttribute('data-isolation', 'off');
  await expect(row.getByRole('note')).toContainText('never started');
  await testInfo.attach('02-added', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });

  await page.reload();
  const again = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'filesystem' }) });
  await expect(again).toBeVisible();
  await expect(again.locator('code')).toContainText('server-filesystem');
  await testInfo.attach('03-reloaded', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });

  const config = await warden.readConfig();
  const saved = config.servers.find((s) => s.name === 'filesystem');
  expect(saved?.launch).toEqual({
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Projects'],
  });
});

test('an unsandboxed server is shown in red as "Not sandboxed"', async ({
  page,
  warden,
}, testInfo) => {
  await page.goto(warden.url);
  await page.getByLabel('Name').fill('raw');
  await page.getByLabel('Command').fill('/usr/bin/env');
  await page.getByRole('radio', { name: /Not sandboxed/ }).check();
  await page.getByRole('button', { name: 'Add server' }).click();
  const badge = page.locator('[data-server="raw"] [data-isolation]');
  await expect(badge).toHaveText('Not sandboxed');
  await expect(badge).toHaveAttribute('data-isolation', 'off');
  const bg = await badge.evaluate((el) => getComputedStyle(el).backgroundColor);
  const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number) as [number, number, number];
  expect(r, `badge background ${bg} should be red`).toBeGreaterThan(g + 60);
  expect(r).toBeGreaterThan(b + 60);
  await testInfo.attach('not-sandboxed', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  });
});

test('shows the field the core refused, next to that field', async ({ page, warden }) => {
  await page.goto(warden.url);
  await page.getByLabel('Name').fill('bad name!');
  await page.getByLabel('Command').fill('node');
  await page.getByRole('button', { name: 'Add server' }).click();
  const name = page.getByLabel('Name');
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toBeFocused();
  await expect(page.getByText('must be 1-64 letters')).toBeVisible();
  expect((await warden.readConfig().catch(() => ({ servers: [] }))).servers).toEqual([]);
});

test('the servers screen has no serious or critical accessibility violations', async ({
  page,
  warden,
}) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(warden.url);
    await page.getByLabel('Name').fill(`srv-${scheme}`);
    await page.getByLabel('Command').fill('node');
    await page.getByRole('button', { name: 'Add server' }).click();
    await expect(page.locator(`[data-server="srv-${scheme}"]`)).toBeVisible();
    const violations = await seriousA11yViolations(page);
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
  }
});

test('every control is reachable with the keyboard and shows focus', async ({ page, warden }) => {
  await page.goto(warden.url);
  await page.getByLabel('Name').fill('kbd');
  await page.getByLabel('Command').fill('node');
  await page.getByRole('button', { name: 'Add server' }).click();
  await expect(page.locator('[data-server="kbd"]')).toBeVisible();
  await page.locator('body').click();

  const reached = new Set<string>();
  // The row's inline controls (sandbox, folders, network, actions) come before the form.
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return undefined;
      const style = getComputedStyle(el);
      return {
        label: el.getAttribute('name') ?? el.textContent?.trim() ?? '',
        outline: style.outlineStyle,
      };
    });
    if (!info) continue;
    expect(info.outline, `focus on ${info.label} must be visible`).not.toBe('none');
    reached.add(info.label);
  }
  expect([...reached]).toEqual(
    expect.arrayContaining([
      'name',
      'command',
      'args',
      'isolation',
      'Add server',
      'I have checked this command for kbd',
    ]),
  );
});

test('a new server shows its full command with a warning until the user confirms it', async ({
  panel: page,
  warden,
}) => {
  await addThroughForm(page, 'memory', 'npx', '-y\n@modelcontextprotocol/server-memory');
  const row = page.locator('[data-server="memory"]');
  await expect(row.locator('code')).toHaveText('npx -y @modelcontextprotocol/server-memory');
  await expect(row.getByRole('note')).toContainText('Warden will run exactly the command above');
  await row.getByRole('button', { name: 'I have checked this command for memory' }).click();
  await expect(row.getByRole('note')).toHaveCount(0);
  await page.reload();
  await expect(page.locator('[data-server="memory"] code')).toBeVisible();
  await expect(page.locator('[data-server="memory"]').getByRole('note')).toHaveCount(0);
  const saved = (await warden.readConfig()).servers.find((s) => s.name === 'memory') as
    { acknowledged?: boolean } | undefined;
  expect(saved?.acknowledged).toBe(true);
});
