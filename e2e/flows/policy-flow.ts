/**
 * Flow 1: add a server, see it "Sandboxed", turn the sandbox off (confirming) and on again, add a
 * read-only folder and an allowed domain, save, and find the change persisted with a new revision.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from '@playwright/test';
import { addNodeServer, type FlowApp, serverItem, snap } from './flow-app';

export async function policyFlow(app: FlowApp, bundle: string): Promise<void> {
  const { page } = app;
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  await addNodeServer(page, 'tools', bundle);
  const row = serverItem(page, 'tools');
  await expect(row.locator('[data-isolation]')).toHaveText('Sandboxed');
  await expect(row.locator('code').first()).toHaveText(`${process.execPath} ${bundle}`);
  await expect(row.getByRole('note')).toContainText('never started');
  await expect(row.locator('[data-run-state]')).toHaveText('Stopped');
  await snap(app, 'flow1-01-servers');

  await row.getByRole('button', { name: 'Edit policy of tools' }).click();
  const editor = page.locator('[data-policy="tools"]');
  await expect(editor.getByRole('heading', { name: 'Policy of tools' })).toBeVisible();
  await expect(editor.locator('[data-revision]')).toHaveText('Revision 1');
  const sandbox = editor.getByRole('switch', { name: 'Sandbox isolation' });
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');

  // Off asks first; cancelling keeps it on.
  await sandbox.click();
  const dialog = page.getByRole('dialog', { name: 'Turn off the sandbox for "tools"?' });
  await expect(dialog).toBeVisible();
  await snap(app, 'flow1-02-confirm-off');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
  await sandbox.click();
  await dialog.getByRole('button', { name: 'Turn off sandbox' }).click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'false');
  await expect(
    editor.getByText('Not sandboxed: tools will run with your full user rights'),
  ).toBeVisible();
  await sandbox.click();
  await expect(sandbox).toHaveAttribute('aria-checked', 'true');
  await expect(dialog).toBeHidden();

  // A folder, read-only; a relative path is refused as it is typed.
  const folder = await mkdtemp(join(tmpdir(), 'warden-e2e-root-'));
  const pathField = editor.getByLabel('Folder path');
  await pathField.fill('relative/dir');
  await expect(editor.getByText('must be an absolute path')).toBeVisible();
  await expect(pathField).toHaveAttribute('aria-invalid', 'true');
  await pathField.fill(folder);
  await editor.getByRole('button', { name: 'Add folder' }).click();
  const root = editor.locator(`[data-root="${folder}"]`);
  await expect(root.getByRole('switch', { name: `Writable ${folder}` })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  await snap(app, 'flow1-03-folders');

  // A domain, validated as typed.
  await editor.getByRole('tab', { name: 'Network' }).click();
  await editor.getByRole('radio', { name: /Allowlist/ }).check();
  const allow = editor.getByRole('textbox', { name: 'Allowed destinations' });
  await allow.fill('https://api.example.com/x');
  await expect(editor.getByText('is a URL, not a host pattern')).toBeVisible();
  await allow.fill('*.com');
  await expect(editor.getByRole('button', { name: 'Add to Allowed destinations' })).toBeDisabled();
  await allow.fill('API.example.com:443');
  await allow.press('Enter');
  await expect(editor.getByRole('list', { name: 'Allowed destinations' })).toContainText(
    'api.example.com:443',
  );
  await snap(app, 'flow1-04-network');

  await expect(editor.getByText('Unsaved changes')).toBeVisible();
  await editor.getByRole('button', { name: 'Save policy' }).click();
  await expect(
    editor.getByRole('status').filter({ hasText: 'Saved as revision 2.' }),
  ).toBeVisible();
  await expect(editor.locator('[data-revision]')).toHaveText('Revision 2');
  await snap(app, 'flow1-05-saved');

  const saved = (await app.readConfig()).servers.find((s) => s.name === 'tools') as {
    revision: number;
    policy: {
      isolation: string;
      filesystem: { roots: unknown[] };
      network: { mode: string; allow: string[] };
    };
  };
  expect(saved.revision).toBe(2);
  expect(saved.policy.isolation).toBe('sandbox');
  expect(saved.policy.filesystem.roots).toEqual([
    { path: dirname(bundle), access: 'read' },
    { path: folder, access: 'read' },
  ]);
  expect(saved.policy.network).toMatchObject({ mode: 'allowlist', allow: ['api.example.com:443'] });

  // It survives a reload of the page.
  await page.reload();
  await serverItem(page, 'tools').getByRole('button', { name: 'Edit policy of tools' }).click();
  await expect(page.locator('[data-policy="tools"] [data-revision]')).toHaveText('Revision 2');
  await expect(page.locator(`[data-root="${folder}"]`)).toBeVisible();
  expect(dirname(folder)).toBe(tmpdir());
}
