/**
 * A config file that cannot be used is moved aside and reported in the UI, never overwritten:
 * the panel says what was wrong and where the file is now, and still starts.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startServe, stopServe } from './fixtures';

test('a corrupt config.json is reported with where it was kept, and the panel still works', async ({
  page,
}, testInfo) => {
  const home = await mkdtemp(join(tmpdir(), 'warden-corrupt-'));
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    await writeFile(join(home, 'config.json'), '{"schemaVersion": 1, "servers": [');
    serve = await startServe(home);
    const { url } = serve;
    await page.goto(url);
    const alert = page
      .getByRole('alert')
      .filter({ hasText: 'Your configuration could not be used' });
    await expect(alert).toContainText('config.json is not valid JSON');
    const kept = (await readdir(home)).find((f) => f.startsWith('config.json.corrupt-'));
    expect(kept).toBeDefined();
    await expect(alert).toContainText(join(home, kept!));
    expect(await readFile(join(home, kept!), 'utf8')).toBe('{"schemaVersion": 1, "servers": [');
    await page.screenshot({ path: testInfo.outputPath('config-problem.png'), fullPage: true });
    await expect(page.getByRole('button', { name: /add server/i }).first()).toBeVisible();
  } finally {
    if (serve) await stopServe(serve.child);
    await rm(home, { recursive: true, force: true });
  }
});
