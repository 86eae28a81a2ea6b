/**
 * Signing in from a real browser without a credential in any URL and without a cookie: the
 * one-time file that `warden serve` opens redirects to a code that the panel takes out of the
 * address bar and trades for a session secret kept in its origin's storage, with which it
 * connects; the code works once; a browser opened by hand is sent to /login and signs in with
 * the printed token by a form; a secret the server no longer knows sends the page to /login.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Page, expect, test } from '@playwright/test';
import { processEnv, repoRoot, stopServe } from './fixtures';
import { snapBoth } from './flows/flow-app';

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

const origin = () =>
  /Warden is serving at (http:\/\/[0-9a-f]{32}\.localhost:\d+)\//.exec(out)?.[1] ?? '';
const port = () => origin().split(':').at(-1) ?? '';
const signInFile = () => pathToFileURL(join(home, 'run', `open-${port()}.html`)).href;

/** The session secret the panel keeps in its origin's storage. */
const storedSecret = (page: Page) => page.evaluate(() => localStorage.getItem('warden-session'));

test('the one-time file signs the browser in, once, leaving no cookie', async ({
  page,
}, testInfo) => {
  await page.goto(signInFile());
  await expect(page.getByText('No servers yet')).toBeVisible();
  // The code left the address bar and the history entry: the page is at `/`.
  await expect(page).toHaveURL(`${origin()}/`);
  expect(await page.evaluate(() => location.hash)).toBe('');
  expect(await page.context().cookies()).toEqual([]);
  expect(await storedSecret(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);

  // A reload opens the panel again with the stored secret.
  await page.reload();
  await expect(page.getByText('No servers yet')).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/`);

  // The code is spent: opening the file again in a fresh browser context gets nowhere. Its
  // question to the per-run name is spent too, which Warden says, and the file says so, offering
  // nothing; the code is refused at the fallback address as well.
  const other = await page.context().browser()!.newContext();
  const again = await other.newPage();
  await again.goto(signInFile());
  const spent = again.getByRole('alert');
  await expect(spent).toContainText('This sign-in file was used already');
  await expect(spent).toContainText('Run warden open to sign in again.');
  await expect(spent.getByRole('link')).toHaveCount(0);
  await expect(again).toHaveURL(/^file:/);
  await snapBoth(again, again.locator('body'), 'sign-in-file-spent', testInfo);
  const html = await readFile(fileURLToPath(signInFile()), 'utf8');
  const fallback = /<a href=("[^"]+")>the fallback address/.exec(html)?.[1] ?? '""';
  await again.goto(JSON.parse(fallback) as string);
  await expect(again.getByText('already used or has expired')).toBeVisible();
  expect(await other.cookies()).toEqual([]);
  await other.close();
});

test('a secret the server does not know is forgotten, and the page goes to /login', async ({
  page,
}) => {
  await page.goto(`${origin()}/login`);
  await page.evaluate(() => localStorage.setItem('warden-session', 'A'.repeat(43)));
  await page.goto(`${origin()}/`);
  await expect(page).toHaveURL(`${origin()}/login`);
  expect(await storedSecret(page)).toBeNull();
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
  await expect(page.getByText('No servers yet')).toBeVisible();
  await expect(page).toHaveURL(`${origin()}/`);
  expect(await page.context().cookies()).toEqual([]);
  expect(await storedSecret(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
});
