/**
 * Signing in from a real browser without a credential in any URL: the one-time file that
 * `warden serve` opens redirects to a code that Chromium trades for an HttpOnly, SameSite=Strict
 * cookie, with which the control panel connects; the code works once; a browser opened by hand
 * is sent to /login and signs in with the printed token by a form.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { processEnv, repoRoot, stopServe } from './fixtures';

let home: string;
let child: ChildProcess;
let out = '';

/** `warden serve` opening its sign-in file with an opener that does nothing (the test opens it). */
test.beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-e2e-sign-in-'));
  out = '';
  child = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'warden.js'), 'serve', '--port', '0', '--gateway-port', '0'],
    {
      cwd: repoRoot,
      env: { ...processEnv(), WARDEN_HOME: home, BROWSER: '/bin/true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  await expect.poll(() => /Session token [^:]*: [A-Za-z0-9_-]+\n/.test(out)).toBe(true);
});
test.afterEach(async () => {
  await stopServe(child);
  await rm(home, { recursive: true, force: true });
});

const origin = () => /Warden is serving at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1] ?? '';
const port = () => origin().split(':').at(-1) ?? '';
const signInFile = () => pathToFileURL(join(home, 'run', `open-${port()}.html`)).href;

test('the one-time file signs the browser in with an HttpOnly cookie, once', async ({ page }) => {
  await page.goto(signInFile());
  await expect(page).toHaveURL(`${origin()}/`);
  await expect(page.getByText('No servers yet')).toBeVisible();
  const cookies = await page.context().cookies();
  expect(cookies).toEqual([
    expect.objectContaining({
      name: `warden-session-${port()}`,
      httpOnly: true,
      sameSite: 'Strict',
    }),
  ]);
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // The code is spent: opening the file again in a fresh browser context gets nowhere.
  const other = await page.context().browser()!.newContext();
  const again = await other.newPage();
  await again.goto(signInFile());
  await expect(again.getByText('already used or has expired')).toBeVisible();
  expect(await other.cookies()).toEqual([]);
  await other.close();
});

test('a browser opened by hand is sent to /login and signs in with the printed token', async ({
  page,
}) => {
  await page.goto(`${origin()}/`);
  await expect(page).toHaveURL(`${origin()}/login`);
  await page.getByLabel('Session token').fill('not-the-token-not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('not the session token');
  const token = /Session token [^:]*: ([A-Za-z0-9_-]+)\n/.exec(out)?.[1] ?? '';
  await page.getByLabel('Session token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${origin()}/`);
  await expect(page.getByText('No servers yet')).toBeVisible();
});
