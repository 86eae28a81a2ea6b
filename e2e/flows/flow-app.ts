/**
 * What a flow needs of the app under test, whether it is the web UI of `warden serve` in Chromium
 * or the Electron window: the page, the WARDEN_HOME it runs on, and MCP clients joining it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page, TestInfo } from '@playwright/test';

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

/** Opens a screen from the main navigation. */
export async function openScreen(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: label }).click();
}

/** The servers list item of `name`. */
export function serverItem(page: Page, name: string) {
  return page.locator(`[data-server="${name}"]`);
}

/** The text of the first content block of a tool result. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
