/**
 * The audit retention control in Chromium against a real `warden serve`: it shows the defaults,
 * refuses a value that is not a whole number, and saves new limits to config.json.
 */
import { expect, test } from './fixtures';
import { openScreen } from './flows/flow-app';

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
