/**
 * A server's exceptions edited in the control panel, against a real `warden serve`: in the Files
 * tab of its policy, a Git server is let write `.git` in its writable folder and see `~/.aws`;
 * saved, the core's stored policy has both and its effective policy lists them as exceptions;
 * taken back, none is left. Under a managed policy that hides ~/work/secrets, that path is locked
 * with its rule; under one that allows no workspace file exception, every workspace file is, and
 * an exception saved before the rule came says it must go. Screenshots of the section, in both
 * themes, with exceptions and without, and locked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test as plain } from '@playwright/test';
import { expect, test as base } from './fixtures';
import { openScreen, serverItem, snapBoth } from './flows/flow-app';
import { withManagedServe } from './flows/managed-serve';
import { storedPolicy } from './flows/stored-policy';

const test = base.extend<{ writable: string }>({
  // eslint-disable-next-line no-empty-pattern
  writable: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-e2e-except-'));
    await use(dir);
    await rm(dir, { recursive: true, force: true });
  },
  seedServers: async ({ writable }, use) => {
    await use([['git', '--rw', writable, '--', 'cat']]);
  },
});

/** The core's stored guards of `name`, and its effective exception lines. */
async function stored(home: string, name: string) {
  const { policy, effective } = await storedPolicy(home, name);
  return {
    guards: policy.guards,
    exceptions: effective.lines.filter((l) => l.exception).map((l) => `${l.field} ${l.value}`),
  };
}

test('exceptions are added in the Files tab, saved in the core, effective, and taken back', async ({
  panel: page,
  warden,
}, testInfo) => {
  await serverItem(page, 'git').getByRole('button', { name: 'Edit policy of git' }).click();
  const section = page.getByRole('region', { name: 'Exceptions' });
  const workspace = section.getByRole('list', { name: 'Workspace files this server may write' });
  const hidden = section.getByRole('list', { name: 'Hidden paths this server may see' });
  await expect(workspace).toContainText('None: every workspace file is kept read-only.');
  await page.mouse.move(0, 0);
  await snapBoth(page, section, 'policy-exceptions-none', testInfo);

  // With the keyboard alone: choose, then the button after it.
  const file = section.getByRole('combobox', { name: 'Workspace file' });
  await file.focus();
  await file.selectOption('.git');
  await page.keyboard.press('Tab');
  await expect(section.getByRole('button', { name: 'Allow writing' })).toBeFocused();
  await page.keyboard.press('Enter');
  // The button is disabled once it has added the choice: focus is back on the choice.
  await expect(file).toBeFocused();
  await section.getByRole('combobox', { name: 'Hidden path' }).selectOption('~/.aws');
  await section.getByRole('button', { name: 'Allow seeing' }).click();

  const git = workspace.locator('[data-item=".git"]');
  await expect(git.locator('.exception-warning')).toHaveText(
    'Exception: this server may write the workspace file .git in its writable folders; what it ' +
      'puts there can run as you, outside any sandbox.',
  );
  await expect(hidden.locator('[data-item="~/.aws"] .exception-warning')).toHaveText(
    'Exception: this server may see the hidden path ~/.aws and read the secrets kept there.',
  );
  await expect(git).toHaveClass(/guard-exception/);
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await page.mouse.move(0, 0);
  await snapBoth(page, section, 'policy-exceptions-set', testInfo);

  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
  expect(await stored(warden.home, 'git')).toEqual({
    guards: { hide: [], unhide: ['~/.aws'], unprotect: ['.git'] },
    exceptions: ['shown (exception) ~/.aws', 'write (exception) .git'],
  });

  await workspace.getByRole('button', { name: 'Remove exception .git' }).click();
  await hidden.getByRole('button', { name: 'Remove exception ~/.aws' }).click();
  await expect(workspace).toContainText('None: every workspace file is kept read-only.');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('No unsaved changes', { exact: true })).toBeVisible();
  await expect
    .poll(() => stored(warden.home, 'git'))
    .toEqual({ guards: undefined, exceptions: [] });
});

plain(
  'a hidden path the managed policy keeps is locked with its rule',
  async ({ page }, testInfo) => {
    const managed = JSON.stringify({ hiddenPaths: ['~/work/secrets'] });
    await withManagedServe(page, { managed, seeds: [['keys', '--', 'cat']] }, async () => {
      await serverItem(page, 'keys').getByRole('button', { name: 'Edit policy of keys' }).click();
      const section = page.getByRole('region', { name: 'Exceptions' });
      const choice = section.getByRole('combobox', { name: 'Hidden path' });
      await choice.selectOption('~/work/secrets');
      await baseExpect(section.locator('[data-locked]')).toHaveText(
        'Locked: the managed policy hides ~/work/secrets; no server may see it ' +
          '(managed hiddenPaths "~/work/secrets")',
      );
      await baseExpect(section.getByRole('button', { name: 'Allow seeing' })).toBeDisabled();
      await page.mouse.move(0, 0);
      await snapBoth(page, section, 'policy-exceptions-locked', testInfo);
      await choice.selectOption('~/.ssh');
      await baseExpect(section.locator('[data-locked]')).toHaveCount(0);
      await baseExpect(section.getByRole('button', { name: 'Allow seeing' })).toBeEnabled();
    });
  },
);

plain(
  'where the managed policy allows no workspace file exception, every one is locked',
  async ({ page }, testInfo) => {
    const managed = JSON.stringify({ workspace: { allowExceptions: false } });
    const writable = await mkdtemp(join(tmpdir(), 'warden-e2e-except-'));
    const seeds = [['git', '--rw', writable, '--unprotect', '.git', '--', 'cat']];
    try {
      await withManagedServe(page, { managed, seeds }, async () => {
        await serverItem(page, 'git').getByRole('button', { name: 'Edit policy of git' }).click();
        const section = page.getByRole('region', { name: 'Exceptions' });
        const group = section.locator('[data-exceptions-of="unprotect"]');
        const rule =
          'the managed policy keeps every workspace file read-only for every server, with no ' +
          'exception (managed workspace.allowExceptions=false)';
        await baseExpect(group.locator('[data-locked-all]')).toHaveText(`Locked: ${rule}.`);
        await baseExpect(group.locator('[data-item=".git"] .exception-problem')).toHaveText(
          'Locked: remove this exception to save.',
        );
        // Nothing to choose: no workspace file may be added.
        await baseExpect(section.getByRole('combobox', { name: 'Workspace file' })).toHaveCount(0);
        await baseExpect(section.getByRole('button', { name: 'Allow writing' })).toHaveCount(0);
        await page.mouse.move(0, 0);
        await snapBoth(page, section, 'policy-exceptions-workspace-locked', testInfo);
        // Taking the exception back is what the rule allows: saved, nothing is left.
        await group.getByRole('button', { name: 'Remove exception .git' }).click();
        await page.getByRole('button', { name: 'Save policy' }).click();
        await baseExpect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
        await openScreen(page, 'Policy');
        const shown = page.locator('[data-managed-rule="workspace.allowExceptions"]');
        await baseExpect(shown).toContainText('forbidden: every workspace file stays read-only');
      });
    } finally {
      await rm(writable, { recursive: true, force: true });
    }
  },
);
