/**
 * The audit log's OpenTelemetry export on the Audit log screen, in Chromium against a real
 * `warden serve` and a local OTLP collector: set up from the screen, the core exports at once
 * (no restart) with the header the user typed, which is never shown back; a change names the
 * header again; turning it off is itself the last row the collector gets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startOtlpCollector } from '../test/telemetry/otlp-collector';
import { seriousA11yViolations } from './axe';
import { startServe, stopServe } from './fixtures';
import { openScreen, snapBoth } from './flows/flow-app';

test('the export is set up, followed at once, changed and turned off from the Audit log screen', async ({
  page,
}, testInfo) => {
  const root = await mkdtemp(join(tmpdir(), 'warden-telemetry-e2e-'));
  const collector = await startOtlpCollector();
  const serve = await startServe(join(root, 'warden'));
  try {
    await page.goto(serve.url);
    await openScreen(page, 'Audit log');
    const part = page.locator('.audit-telemetry');
    await expect(part).toHaveAttribute('data-telemetry', 'off');
    await snapBoth(page, part, 'telemetry-off', testInfo);

    await part.getByRole('button', { name: 'Set up export' }).click();
    await part.getByLabel('Collector endpoint (OTLP over HTTP)').fill(collector.endpoint);
    await part.getByRole('button', { name: 'Add header' }).click();
    await part.getByLabel('Header 1 name').fill('X-Api-Key');
    await part.getByLabel('Header 1 value').fill('k-e2e-4711');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await snapBoth(page, part, 'telemetry-form', testInfo);
    await part.getByRole('button', { name: 'Save export' }).click();
    await expect(part).toHaveAttribute('data-telemetry', 'on');
    await expect(part).toContainText(collector.endpoint);
    await expect(part).toContainText('with header X-Api-Key');
    await expect(page.locator('body')).not.toContainText('k-e2e-4711');
    await snapBoth(page, part, 'telemetry-on', testInfo);

    // A change names the header again; its value is not shown back.
    await part.getByRole('button', { name: 'Change export' }).click();
    await expect(part.getByLabel('Header 1 value')).toHaveValue('');
    await part.getByLabel('Header 1 value').fill('k-e2e-4712');
    await part.getByRole('button', { name: 'Save export' }).click();
    await expect(part.getByRole('status')).toHaveText('Saved; the export follows it now.');

    // Turning it off is recorded in the log, and that row still reaches the collector.
    await part.getByRole('button', { name: 'Turn export off' }).click();
    await expect(part).toHaveAttribute('data-telemetry', 'off');
    await expect
      .poll(() =>
        collector.logRecords().some((r) => JSON.stringify(r).includes('[\\"telemetry\\"]')),
      )
      .toBe(true);
    expect(collector.posts.length).toBeGreaterThan(0);
    expect(
      collector.posts.every(
        (p) => p.headers['x-api-key'] === 'k-e2e-4712' || p.headers['x-api-key'] === 'k-e2e-4711',
      ),
    ).toBe(true);
    expect(collector.posts.at(-1)?.headers['x-api-key']).toBe('k-e2e-4712');
  } finally {
    await stopServe(serve.child);
    await collector.close();
    await rm(root, { recursive: true, force: true });
  }
});
