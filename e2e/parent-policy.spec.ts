/**
 * The parent policy in the control panel, against a real `warden serve` whose managed policy
 * (WARDEN_MANAGED_POLICY, a temp file) forbids isolation off, denies *.blocked.test and caps
 * memory: the Policy screen shows those rules read-only with their file, the row's sandbox switch
 * is locked with the managed rule, allowing api.blocked.test is refused naming the rule, the
 * global part saves with the core's field errors shown, and a malformed managed file is reported
 * on every screen with the reason. A managed allowlist and minimum audit retention lock the row's
 * domain field and refuse a shorter retention, naming their rules.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import type { Guards } from '../app/policy/guards';
import { wardenCli } from './fixtures';
import { openScreen, serverItem, snapBoth } from './flows/flow-app';
import { withManagedServe } from './flows/managed-serve';

const MANAGED = {
  isolation: { allowOff: false },
  network: { deny: ['*.blocked.test'] },
  limits: { memoryMb: 2048 },
};

const SEEDS = [
  ['web', '--net', 'allowlist', '--', 'cat'],
  ['keys', '--unhide', '~/.aws', '--', 'cat'],
];
const run = (page: Page, managed: string, body: Parameters<typeof withManagedServe>[2]) =>
  withManagedServe(page, { managed, seeds: SEEDS }, body);

test('managed rules lock the sandbox switch and refuse a denied domain, naming the rule', async ({
  page,
}, testInfo) => {
  await run(page, JSON.stringify(MANAGED), async ({ home, file }) => {
    const row = serverItem(page, 'web');
    const sandbox = row.getByRole('switch', { name: /Sandbox/ });
    await expect(sandbox).toBeDisabled();
    await expect(row.locator('[data-locked]')).toContainText(
      'the managed policy forbids isolation off (managed isolation.allowOff=false)',
    );

    await row.getByRole('button', { name: /\+ Domain/ }).click();
    const input = row.getByRole('textbox', { name: /Domain for web/ });
    await input.fill('api.blocked.test');
    await expect(
      row.getByText(/Locked: the managed policy denies \*\.blocked\.test/),
    ).toContainText('managed network.deny "*.blocked.test"');
    await expect(row.getByRole('button', { name: /^Allow domain for web/ })).toBeDisabled();
    await input.press('Enter');
    await page.screenshot({ path: testInfo.outputPath('row-locked.png'), fullPage: true });
    const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      servers: { name: string; policy: { network: { allow: string[] } } }[];
    };
    expect(config.servers.find((x) => x.name === 'web')?.policy.network.allow).toEqual([]);
    // A domain the managed layer does not deny is allowed as usual.
    await input.fill('api.fine.test');
    await input.press('Enter');
    await expect(row.locator('[data-domain="api.fine.test"]')).toBeVisible();

    await openScreen(page, 'Policy');
    const managed = page.getByRole('region', { name: /Managed policy/ });
    await expect(managed).toContainText(file);
    await expect(managed.locator('[data-managed-rule="isolation.allowOff"]')).toContainText(
      'forbidden',
    );
    await expect(managed.locator('[data-managed-rule="network.deny"]')).toContainText(
      '*.blocked.test',
    );
    await expect(page.getByRole('switch', { name: /isolation off/ })).toBeDisabled();
    // The server excepted from a hidden path is listed, in red, here and on its row.
    const exception = page.locator('[data-exceptions="keys"]');
    await expect(exception).toContainText('~/.aws');
    await expect(exception).toHaveClass(/guard-exception/);
    await openScreen(page, 'Servers');
    await expect(serverItem(page, 'keys').locator('[data-exceptions]')).toContainText('~/.aws');
  });
});

test('the global part saves from the Policy screen; the core answers field errors beside the field', async ({
  page,
}) => {
  await run(page, JSON.stringify(MANAGED), async ({ home }) => {
    await openScreen(page, 'Policy');
    const memory = page.getByRole('spinbutton', { name: 'Memory (MB)' });
    await memory.fill('4096');
    await expect(page.locator('[data-limit="memoryMb"]')).toContainText(
      'managed limits.memoryMb=2048',
    );
    await memory.fill('1.5');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.locator('[data-limit="memoryMb"] .field-error')).toContainText(
      'must be a whole number',
    );
    await memory.fill('512');
    await page.getByRole('textbox', { name: 'Hidden paths' }).fill('~/work/keys');
    await page.getByRole('button', { name: 'Add to Hidden paths' }).click();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      guards: { hiddenPaths: string[]; limits: { memoryMb: number } };
    };
    expect(config.guards.limits.memoryMb).toBe(512);
    expect(config.guards.hiddenPaths).toContain('~/work/keys');
  });
});

test('the global allow list and switches save from the Policy screen; the row then names the global rule', async ({
  page,
}, testInfo) => {
  const managed = { workspace: { allowExceptions: false } };
  await run(page, JSON.stringify(managed), async ({ home }) => {
    await openScreen(page, 'Policy');
    const form = page.locator('.parent-policy-form');
    // The managed layer forbids workspace exceptions: the global switch is locked, naming it.
    const exceptions = form.getByRole('switch', { name: /write workspace files/ });
    await expect(exceptions).toBeDisabled();
    await expect(exceptions).toHaveAttribute('aria-checked', 'false');
    await expect(form).toContainText('(managed workspace.allowExceptions=false)');
    await form.getByRole('switch', { name: /Limit every server/ }).click();
    await expect(form).toContainText('The list is empty: no server may reach any destination.');
    await form.getByRole('textbox', { name: 'Allowed destinations only' }).fill('*.corp.test');
    await form.getByRole('button', { name: 'Add to Allowed destinations only' }).click();
    await form.getByRole('switch', { name: /best-effort/ }).click();
    await snapBoth(page, form, 'global-switches', testInfo);
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const config = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      guards: Guards;
    };
    expect(config.guards.network?.allow).toEqual(['*.corp.test']);
    expect(config.guards.isolation?.allowBestEffort).toBe(false);
    // Locked and untouched, the workspace switch is not written: the stored part keeps its default.
    expect(config.guards.workspace).toBeUndefined();

    await openScreen(page, 'Servers');
    const row = serverItem(page, 'web');
    await row.getByRole('button', { name: /\+ Domain/ }).click();
    await row.getByRole('textbox', { name: /Domain for web/ }).fill('api.other.test');
    await expect(row.getByText(/^Locked: /)).toContainText(
      'the global policy allows only *.corp.test; "api.other.test" is outside it (global network.allow)',
    );

    // Turned off again, the list is dropped, not left empty.
    await openScreen(page, 'Policy');
    await form.getByRole('switch', { name: /Limit every server/ }).click();
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const after = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      guards: Guards;
    };
    expect(after.guards.network).toBeUndefined();
  });
});

test('a change made elsewhere while the Policy screen is open is shown, and taken in under the edits', async ({
  page,
}, testInfo) => {
  await run(page, '{}', async ({ home }) => {
    await openScreen(page, 'Policy');
    const form = page.locator('.parent-policy-form');
    const deny = form.getByRole('list', { name: 'Denied destinations' });
    // Nothing edited here: the command line's change shows at once.
    await wardenCli(home, ['policy', 'edit', '--deny', '*.cli.test']);
    await expect(deny).toContainText('*.cli.test');
    await expect(form.getByRole('button', { name: 'Discard changes' })).toHaveCount(0);

    // Edits here, then config.json edited by hand: its change is taken in under them.
    await form.getByRole('textbox', { name: 'Hidden paths' }).fill('~/work/keys');
    await form.getByRole('button', { name: 'Add to Hidden paths' }).click();
    await expect(form).not.toContainText('These are the defaults.');
    const memory = form.getByRole('spinbutton', { name: 'Memory (MB)' });
    await memory.fill('512');
    const path = join(home, 'config.json');
    const doc = JSON.parse(await readFile(path, 'utf8')) as { guards: Guards };
    doc.guards = { network: { deny: ['*.cli.test', '*.file.test'] }, limits: { memoryMb: 1024 } };
    await writeFile(path, JSON.stringify(doc, null, 2));
    await expect(deny).toContainText('*.file.test');
    await expect(form.locator('[data-draft-conflicts]')).toContainText(
      'Also changed elsewhere while you edited: Default limits (stored: memory 1024 MB). Your values are kept',
    );
    await expect(memory).toHaveValue('512');
    await expect(form.getByRole('list', { name: 'Hidden paths' })).toContainText('~/work/keys');
    await snapBoth(page, form, 'changed-elsewhere', testInfo);
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const saved = (JSON.parse(await readFile(path, 'utf8')) as { guards: Guards }).guards;
    expect(saved.network).toEqual({ deny: ['*.cli.test', '*.file.test'] });
    expect(saved.limits).toEqual({ memoryMb: 512 });
    expect(saved.hiddenPaths).toContain('~/work/keys');
    await expect(form.locator('[data-draft-conflicts]')).toHaveCount(0);

    // Discarded, an edit leaves the stored part as it is shown.
    await memory.fill('64');
    await form.getByRole('button', { name: 'Discard changes' }).click();
    await expect(memory).toHaveValue('512');
  });
});

test('a malformed managed file is reported on every screen with the reason', async ({ page }) => {
  await run(page, '{"isolation": {"allowOff": "no"}}', async ({ file }) => {
    const banner = page.getByRole('alert').filter({ hasText: 'managed policy cannot be used' });
    await expect(banner).toContainText(file);
    await expect(banner).toContainText('isolation.allowOff');
    await banner.getByRole('button', { name: 'Open Policy' }).click();
    await expect(page.getByRole('region', { name: /Managed policy/ })).toContainText(
      'every server launch is refused',
    );
  });
});

test('a managed allowlist and minimum retention lock the row and refuse a shorter retention', async ({
  page,
}) => {
  const managed = { network: { allow: ['*.corp.test'] }, audit: { minRetentionDays: 180 } };
  await run(page, JSON.stringify(managed), async () => {
    const row = serverItem(page, 'web');
    await row.getByRole('button', { name: /\+ Domain/ }).click();
    const input = row.getByRole('textbox', { name: /Domain for web/ });
    await input.fill('api.other.test');
    await expect(row.getByText(/^Locked: /)).toContainText('(managed network.allow)');
    await expect(row.getByRole('button', { name: /^Allow domain for web/ })).toBeDisabled();
    await input.fill('api.corp.test');
    await input.press('Enter');
    await expect(row.locator('[data-domain="api.corp.test"]')).toBeVisible();

    await openScreen(page, 'Audit log');
    const retention = page.getByRole('form', { name: 'Audit retention' });
    await expect(retention).toContainText('managed audit.minRetentionDays');
    await retention.getByRole('textbox', { name: 'Maximum age in days' }).fill('30');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await expect(retention.getByRole('status')).toContainText(
      'Not saved: the managed policy requires the audit log to keep at least 180 days',
    );
    await expect(retention.getByRole('status')).toContainText('managed audit.minRetentionDays=180');
  });
});
