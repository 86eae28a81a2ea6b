/**
 * The audit retention control in Chromium against a real `warden serve`: it shows the defaults,
 * refuses a value that is not a whole number, saves new limits to config.json, and never writes
 * back limits changed in another window or in config.json that it did not show.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { openScreen, snapBoth } from './flows/flow-app';

test('audit retention: shows the defaults, refuses a bad value, saves to config.json', async ({
  panel: page,
  warden,
}) => {
  await openScreen(page, 'Audit log');
  const form = page.getByRole('form', { name: 'Audit retention' });
  const size = form.getByLabel('Maximum size in MB');
  const age = form.getByLabel('Maximum age in days');
  await expect(size).toHaveValue('1024');
  await expect(age).toHaveValue('365');
  await size.fill('-3');
  await form.getByRole('button', { name: 'Save retention' }).click();
  await expect(form.getByRole('status')).toContainText('Enter whole numbers of 1 or more');
  await size.fill('');
  await age.fill('30');
  await form.getByRole('button', { name: 'Save retention' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved; older rows are removed now.');
  const config = (await warden.readConfig()) as unknown as { audit?: unknown };
  expect(config.audit).toEqual({ retention: { maxSizeMb: null, maxAgeDays: 30 } });
});

test('audit retention: a change made in another window or in config.json is taken in under the edits', async ({
  panel: page,
  warden,
}, testInfo) => {
  await openScreen(page, 'Audit log');
  const form = page.getByRole('form', { name: 'Audit retention' });
  const size = form.getByLabel('Maximum size in MB');
  const age = form.getByLabel('Maximum age in days');
  await expect(size).toHaveValue('1024');
  // This window edits the size; a second window of the same panel lifts the age limit.
  await size.fill('500');
  const other = await page.context().newPage();
  await other.goto(warden.url);
  await openScreen(other, 'Audit log');
  const otherForm = other.getByRole('form', { name: 'Audit retention' });
  await expect(otherForm.getByLabel('Maximum age in days')).toHaveValue('365');
  await otherForm.getByLabel('Maximum age in days').fill('');
  await otherForm.getByRole('button', { name: 'Save retention' }).click();
  await expect(otherForm.getByRole('status')).toHaveText('Saved; older rows are removed now.');
  await other.close();
  // Taken in here without a conflict: saving keeps both changes, not the 365 days shown before.
  await expect(age).toHaveValue('');
  await expect(size).toHaveValue('500');
  await expect(form.locator('[data-draft-conflicts]')).toHaveCount(0);
  await form.getByRole('button', { name: 'Save retention' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved; older rows are removed now.');
  const saved = (await warden.readConfig()) as unknown as { audit?: unknown };
  expect(saved.audit).toEqual({ retention: { maxSizeMb: 500, maxAgeDays: null } });

  // config.json edited by hand while this window edits the same limit: named, mine kept.
  await size.fill('300');
  const path = join(warden.home, 'config.json');
  const doc = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  doc.audit = { retention: { maxSizeMb: 2048, maxAgeDays: 90 } };
  await writeFile(path, JSON.stringify(doc, null, 2));
  await expect(age).toHaveValue('90');
  const notice = form.locator('[data-draft-conflicts]');
  await expect(notice).toContainText(
    'Also changed elsewhere while you edited: Maximum size (stored: 2048 MB). Your values are kept',
  );
  await expect(size).toHaveValue('300');
  await snapBoth(page, form, 'retention-changed-elsewhere', testInfo);
  await form.getByRole('button', { name: 'Discard changes' }).click();
  await expect(size).toHaveValue('2048');
  await expect(notice).toHaveCount(0);
  await expect(form.getByRole('button', { name: 'Discard changes' })).toHaveCount(0);
});
