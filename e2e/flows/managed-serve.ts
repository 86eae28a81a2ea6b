/**
 * `warden serve` on a fresh home whose managed policy is a temp file (WARDEN_MANAGED_POLICY),
 * with servers seeded through the CLI before the managed file exists, so that the seeds are
 * not refused by it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startServe, stopServe, wardenCli } from '../fixtures';

/** Runs `body` with the page open on the panel; `seeds` are `warden servers add` argument lists. */
export async function withManagedServe(
  page: Page,
  options: { managed: string; seeds: string[][] },
  body: (ctx: { home: string; file: string }) => Promise<void>,
): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), 'warden-managed-serve-'));
  const home = join(base, 'home');
  const file = join(base, 'managed-policy.json');
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    for (const seed of options.seeds) await wardenCli(home, ['servers', 'add', ...seed]);
    await writeFile(file, options.managed, { mode: 0o644 });
    serve = await startServe(home, { WARDEN_MANAGED_POLICY: file });
    await page.goto(serve.url);
    await body({ home, file });
  } finally {
    if (serve) await stopServe(serve.child);
    await rm(base, { recursive: true, force: true });
  }
}
