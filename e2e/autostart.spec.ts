/**
 * Start at login on the Host screen, in Chromium against a real `warden serve`: the switch writes
 * and removes the XDG autostart entry, the state survives a reload, and an entry of the same name
 * that starts another program is named before the switch replaces it. The serve process gets a
 * temporary HOME and XDG_CONFIG_HOME, so that the user's own autostart folder is never touched.
 */
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Locator, type Page, expect, test } from '@playwright/test';
import { seriousA11yViolations } from './axe';
import { repoRoot, startServe, stopServe } from './fixtures';
import { openScreen, snapBoth } from './flows/flow-app';

test.skip(process.platform !== 'linux', 'the login item is an XDG autostart file on Linux only');

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Opens the Host screen afresh (a reload shows what the core reads from disk). */
async function openHost(page: Page): Promise<Locator> {
  await page.reload();
  await openScreen(page, 'Host status');
  const section = page.locator('[data-autostart]');
  await expect(section).not.toHaveAttribute('data-autostart', 'unknown');
  return section;
}

test('the switch writes the autostart entry, keeps it across a reload, replaces another program’s and removes it', async ({
  page,
}, testInfo) => {
  const root = await mkdtemp(join(tmpdir(), 'warden-autostart-'));
  const config = join(root, 'xdg-config');
  const entry = join(config, 'autostart', 'mcp-warden.desktop');
  await mkdir(join(root, 'user'));
  const serve = await startServe(join(root, 'warden'), {
    HOME: join(root, 'user'),
    XDG_CONFIG_HOME: config,
  });
  try {
    await page.goto(serve.url);
    let section = await openHost(page);
    const toggle = () => section.getByRole('switch', { name: 'Start Warden at login' });
    await expect(toggle()).toHaveAttribute('aria-checked', 'false');
    await expect(section.getByText(entry, { exact: true })).toBeVisible();
    await expect(section).toContainText('so their servers answer sooner');
    expect(await exists(entry)).toBe(false);

    await toggle().click();
    await expect(toggle()).toHaveAttribute('aria-checked', 'true');
    const exec = /^Exec=(.*)$/m.exec(await readFile(entry, 'utf8'))?.[1];
    // This install's `warden serve --no-open`; the flags that follow carry this core's settings.
    expect(exec).toContain(`${join(repoRoot, 'bin', 'warden')} serve --no-open`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await snapBoth(page, section, 'autostart-on', testInfo);

    section = await openHost(page);
    await expect(toggle()).toHaveAttribute('aria-checked', 'true');

    await writeFile(
      entry,
      '[Desktop Entry]\nType=Application\nName=MCP Warden\nExec=/usr/bin/something-else --flag\n',
    );
    section = await openHost(page);
    const other = section.locator('[data-autostart-other]');
    await expect(other).toContainText('/usr/bin/something-else --flag');
    await expect(other).toContainText('Turning the switch on replaces it');
    await expect(toggle()).toHaveAttribute('aria-checked', 'false');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await snapBoth(page, section, 'autostart-other', testInfo);

    // On replaces the other program's entry with Warden's; off then removes it.
    await toggle().click();
    await expect(toggle()).toHaveAttribute('aria-checked', 'true');
    await expect(other).toHaveCount(0);
    expect(await readFile(entry, 'utf8')).not.toContain('something-else');
    await toggle().click();
    await expect(toggle()).toHaveAttribute('aria-checked', 'false');
    expect(await exists(entry)).toBe(false);
  } finally {
    await stopServe(serve.child);
    await rm(root, { recursive: true, force: true });
  }
});
