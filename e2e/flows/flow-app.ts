/**
 * What a flow needs of the app under test, whether it is the web UI of `warden serve` in Chromium
 * or the Electron window: the page, the WARDEN_HOME it runs on, and MCP clients joining it.
 */
import { dirname } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Locator, type Page, type TestInfo, expect } from '@playwright/test';

export interface FlowApp {
  page: Page;
  home: string;
  connect(name: string): Promise<Client>;
  readConfig(): Promise<{ servers: Array<Record<string, unknown>> }>;
  testInfo: TestInfo;
}

/** Saves a full-page screenshot under the test's output folder and attaches it to the report. */
export async function snap(app: Pick<FlowApp, 'page' | 'testInfo'>, name: string): Promise<void> {
  const path = app.testInfo.outputPath(`${name}.png`);
  await app.page.screenshot({ fullPage: true, path });
  await app.testInfo.attach(name, { path, contentType: 'image/png' });
}

/** Screenshots of `part` in the light and dark themes, saved and attached to the report. */
export async function snapBoth(page: Page, part: Locator, name: string, testInfo: TestInfo) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const path = testInfo.outputPath(`${name}-${scheme}.png`);
    await part.screenshot({ path });
    await testInfo.attach(`${name}-${scheme}`, { path, contentType: 'image/png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Opens a screen from the main navigation. */
export async function openScreen(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: label }).click();
}

/** The servers list item of `name`. */
export function serverItem(page: Page, name: string) {
  return page.locator(`[data-server="${name}"]`);
}

/** Confirms the command of server `name` on its row, as a person does once they have read it. */
export async function confirmServer(page: Page, name: string): Promise<Locator> {
  const row = serverItem(page, name);
  const confirm = row.getByRole('button', { name: `I have checked this command for ${name}` });
  await confirm.click();
  // The button goes once the core has saved the confirmation: a client connecting before that
  // would be refused as unconfirmed.
  await expect(confirm).toHaveCount(0);
  return row;
}

/** Opens the control panel at `url` and confirms the command of server `name`; returns its row. */
export async function openConfirmed(page: Page, url: string, name: string): Promise<Locator> {
  await page.goto(url);
  return confirmServer(page, name);
}

/** Fills the Add form (`args` one a line, read-only folders if given) and submits it. */
export async function addThroughForm(
  page: Page,
  name: string,
  command: string,
  args: string,
  readOnly?: string,
): Promise<void> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Command').fill(command);
  await page.getByLabel('Arguments').fill(args);
  if (readOnly !== undefined) await page.getByLabel('Read-only folders').fill(readOnly);
  await page.getByRole('button', { name: 'Add server' }).click();
}

/** Adds, through the Add form, a server that runs `script` with this Node, its folder read-only. */
export function addNodeServer(page: Page, name: string, script: string): Promise<void> {
  return addThroughForm(page, name, process.execPath, script, dirname(script));
}

/** The text of the first content block of a tool result. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

/** In an open policy editor: sets variable `name` to `value` and saves the policy. */
export async function setVariableAndSave(page: Page, name: string, value: string): Promise<void> {
  await page.getByRole('tab', { name: 'Environment' }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText(/Saved as revision \d+\./)).toBeVisible();
}
