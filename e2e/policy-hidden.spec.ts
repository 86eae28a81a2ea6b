/**
 * A path hidden from one server alone, edited in the control panel against a real `warden serve`:
 * in the Files tab of its policy, a path typed in "More hidden paths" is checked as it is typed
 * (a path every server has hidden already changes nothing, and is refused), saved to the core's
 * stored policy and listed in its effective policy, then taken back. Screenshots of the section,
 * in both themes.
 */
import { expect, test as base } from './fixtures';
import { serverItem, snapBoth } from './flows/flow-app';
import { storedPolicy } from './flows/stored-policy';

const test = base.extend({
  // eslint-disable-next-line no-empty-pattern
  seedServers: async ({}, use) => {
    await use([['notes', '--', 'cat']]);
  },
});

/** The core's own hidden paths of `name`, and its effective hidden lines of the server's layer. */
async function stored(home: string, name: string) {
  const { policy, effective } = await storedPolicy(home, name);
  return {
    hide: policy.guards?.hide,
    lines: effective.lines
      .filter((l) => l.field === 'hidden' && l.layer === 'server')
      .map((l) => l.value),
  };
}

test('a path hidden from one server is added in the Files tab, saved, effective, and taken back', async ({
  panel: page,
  warden,
}, testInfo) => {
  await serverItem(page, 'notes').getByRole('button', { name: 'Edit policy of notes' }).click();
  const section = page.getByRole('region', { name: 'Hidden from this server' });
  const field = section.getByRole('textbox', { name: 'More hidden paths' });
  await field.fill('~/.ssh');
  await expect(section.getByText('"~/.ssh" is hidden from every server already')).toBeVisible();
  await field.fill('../up');
  await expect(section.getByText('"../up" must be ~/PATH')).toBeVisible();
  await field.fill('~/work/drafts');
  await field.press('Enter');
  await field.fill('*.key');
  await field.press('Enter');
  await expect(section.getByText('~/work/drafts')).toBeVisible();
  await page.mouse.move(0, 0);
  await snapBoth(page, section, 'policy-hidden-set', testInfo);

  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
  expect(await stored(warden.home, 'notes')).toEqual({
    hide: ['~/work/drafts', '*.key'],
    lines: ['~/work/drafts', '*.key'],
  });

  await section.getByRole('button', { name: /Remove ~\/work\/drafts/ }).click();
  await section.getByRole('button', { name: /Remove \*\.key/ }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('No unsaved changes', { exact: true })).toBeVisible();
  await expect.poll(() => stored(warden.home, 'notes')).toEqual({ hide: undefined, lines: [] });
});
