/**
 * A long (windowed) servers list against a real `warden serve`: a row keeps what the user has
 * open in it, a half-typed domain and a remove confirmation, while servers are duplicated and
 * added above it and while the list is scrolled away from it and back; and the keyboard focus,
 * while the list is scrolled away from the row that has it.
 */
import { type SeededServer, expect, test, wardenCli } from './fixtures';
import { serverItem } from './flows/flow-app';

/** More than a screenful, and more than the 40 rows a list once rendered whole. */
const COUNT = 45;
const names = Array.from({ length: COUNT }, (_, i) => `row-${String(i).padStart(2, '0')}`);

/** Server `row-00` as the CLI adds it, then copied by hand in config.json up to COUNT. */
function seedCopies(config: { servers: SeededServer[] }): void {
  const [first] = config.servers;
  for (const name of names.slice(1)) config.servers.push({ ...structuredClone(first!), name });
}

test.use({
  seedServers: [['row-00', '--', '/opt/warden-e2e-missing/server', '--stdio']],
  // A function option is taken for a fixture: this one hands the function over.
  // eslint-disable-next-line no-empty-pattern
  editSeededConfig: async ({}, use) => use(seedCopies),
});

test('a row keeps its half-typed domain and its open confirmation while the list changes around it', async ({
  panel: page,
  warden,
}) => {
  const scroller = page.locator('.server-scroll');
  const rows = page.locator('[data-server]');
  await expect(serverItem(page, 'row-02')).toBeVisible();
  // Windowed: far fewer rows in the page than servers.
  expect(await rows.count()).toBeLessThan(COUNT);
  await expect(serverItem(page, 'row-02')).toHaveAttribute('aria-setsize', String(COUNT));

  const target = serverItem(page, 'row-02');
  await target.getByRole('button', { name: /\+ Domain/ }).click();
  const field = target.getByRole('textbox', { name: /Domain for row-02/ });
  await field.fill('api.half');

  // A copy of the row above lands just above it; servers added by hand land above that.
  await serverItem(page, 'row-00').getByRole('button', { name: 'Duplicate row-00' }).click();
  await expect(serverItem(page, 'row-00').getByRole('status')).toContainText('row-00-copy');
  for (const name of ['aa-1', 'aa-2', 'aa-3', 'aa-4']) {
    await wardenCli(warden.home, ['servers', 'add', name, '--', '/opt/warden-e2e-missing/x']);
  }
  await expect(serverItem(page, 'row-02')).toHaveAttribute('aria-posinset', '8');
  // Scrolled a few screens away and back.
  await scroller.evaluate((el) => (el.scrollTop = 3000));
  // The window moved: the rows at the top left the page, the held one did not.
  await expect(serverItem(page, 'aa-1')).toHaveCount(0);
  await expect(field).toHaveValue('api.half');
  await scroller.evaluate((el) => (el.scrollTop = 0));
  await expect(field).toHaveValue('api.half');
  await field.press('End');
  await field.pressSequentially('.test');
  await field.press('Enter');
  await expect(target.locator('[data-domain="api.half.test"]')).toBeVisible();

  // The remove confirmation on the just-made copy stays open while servers are added above.
  const copy = serverItem(page, 'row-00-copy');
  const remove = copy.getByRole('button', { name: 'Remove row-00-copy' });
  // Scrolled to first: rows that come back into the window are placed by the heights they had
  // when they left (row-00 had its "Duplicated" line then) and measured again in the next frame,
  // which could move the button between the click's press and its release.
  await remove.scrollIntoViewIfNeeded();
  await remove.click();
  const dialog = page.getByRole('dialog', { name: 'Remove "row-00-copy"?' });
  await expect(dialog).toBeVisible();
  for (const name of ['a-1', 'a-2', 'a-3', 'a-4', 'a-5']) {
    await wardenCli(warden.home, ['servers', 'add', name, '--', '/opt/warden-e2e-missing/x']);
  }
  await expect(serverItem(page, 'row-00-copy')).toHaveAttribute('aria-posinset', '11');
  // The window resized (as a full-page screenshot does): the list's height follows it.
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: size.width, height: 4000 });
  await page.setViewportSize(size);
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(serverItem(page, 'row-00-copy')).toHaveCount(0);
  const config = await warden.readConfig();
  expect(config.servers.map((s) => s.name)).not.toContain('row-00-copy');
});

test('servers added above the part shown do not move the rows shown', async ({
  panel: page,
  warden,
}) => {
  const scroller = page.locator('.server-scroll');
  await expect(serverItem(page, 'row-02')).toBeVisible();
  await scroller.evaluate((el) => (el.scrollTop = 2500));
  await expect(serverItem(page, 'row-00')).toHaveCount(0);
  // The first row whose top is in view, and where it is on screen.
  const shown = await scroller.evaluate((el) => {
    const top = el.getBoundingClientRect().top;
    const rows = Array.from(el.querySelectorAll<HTMLElement>('[data-server]'));
    const row = rows.find((r) => r.getBoundingClientRect().top >= top)!;
    return { name: row.dataset.server!, y: row.getBoundingClientRect().top };
  });
  const row = serverItem(page, shown.name);
  const before = Number(await row.getAttribute('aria-posinset'));
  for (const name of ['a-1', 'a-2', 'a-3']) {
    await wardenCli(warden.home, ['servers', 'add', name, '--', '/opt/warden-e2e-missing/x']);
  }
  await expect(row).toHaveAttribute('aria-posinset', String(before + 3));
  await expect
    .poll(() => row.evaluate((el) => Math.round(el.getBoundingClientRect().top)))
    .toBe(Math.round(shown.y));
});

test('a row that holds the keyboard focus keeps it while the list is scrolled away', async ({
  panel: page,
}) => {
  const scroller = page.locator('.server-scroll');
  const target = serverItem(page, 'row-02');
  const duplicate = target.getByRole('button', { name: 'Duplicate row-02' });
  await duplicate.focus();
  await expect(duplicate).toBeFocused();
  await scroller.evaluate((el) => (el.scrollTop = 3000));
  // The window moved past the row; the row stayed, and the focus in it.
  await expect(serverItem(page, 'row-00')).toHaveCount(0);
  await expect(duplicate).toBeFocused();
  // The keyboard goes on from there: the next control of the row (which the browser scrolls
  // into view).
  await page.keyboard.press('Tab');
  const focusIn = () => target.evaluate((row) => row.contains(document.activeElement));
  expect(await focusIn()).toBe(true);
  await scroller.evaluate((el) => (el.scrollTop = 3000));
  await expect(serverItem(page, 'row-00')).toHaveCount(0);
  expect(await focusIn()).toBe(true);
  // Once the focus is elsewhere, the row leaves the page at the window's next move.
  await page.locator('#servers-heading').evaluate((h) => {
    h.tabIndex = -1;
    h.focus();
  });
  await scroller.evaluate((el) => (el.scrollTop = 2500));
  await expect(serverItem(page, 'row-02')).toHaveCount(0);
});
