/**
 * The web server's defences seen from a real browser: a page on another origin cannot drive it
 * even when it knows the token, a DNS-rebinding name pointing at 127.0.0.1 gets nothing, and the
 * control panel itself runs under its strict CSP without a single violation.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from '@playwright/test';
import { expect, test } from './fixtures';

test('the control panel runs under its CSP with no console errors', async ({ page, warden }) => {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(warden.url);
  await expect(page.getByText('No servers yet')).toBeVisible();
  expect(problems).toEqual([]);
});

test('a page on another origin cannot open the contract socket, even with the token', async ({
  page,
  warden,
}) => {
  const token = new URL(warden.url).hash.replace('#token=', '');
  const evil = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  try {
    const evilPort = (evil.address() as AddressInfo).port;
    await page.goto(`http://127.0.0.1:${evilPort}/`);
    const wsUrl = `${warden.origin.replace('http:', 'ws:')}/ws`;
    /** Opens the contract socket with the token from the page's origin: 'open' or 'closed'. */
    const openSocket = () =>
      page.evaluate(
        ([url, t]) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url!, ['warden.v1', `warden.token.${t}`]);
            ws.onopen = () => resolve('open');
            ws.onclose = () => resolve('closed');
          }),
        [wsUrl, token],
      );
    expect(await openSocket()).toBe('closed');
    // Positive control: the same call from the panel's own origin opens.
    await page.goto(warden.url);
    expect(await openSocket()).toBe('open');
  } finally {
    await new Promise((done) => evil.close(done));
  }
});

test('a DNS-rebinding name that resolves to 127.0.0.1 is refused', async ({ warden }, testInfo) => {
  const port = new URL(warden.origin).port;
  // The browser resolves rebind.test to 127.0.0.1, as an attacker's DNS would after rebinding.
  const browser = await chromium.launch({
    executablePath: process.env.WARDEN_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP rebind.test 127.0.0.1'],
  });
  try {
    const page = await browser.newPage();
    const response = await page.goto(`http://rebind.test:${port}/`);
    expect(response?.status()).toBe(421);
    await expect(page.getByRole('heading', { name: 'Servers' })).toHaveCount(0);
    await testInfo.attach('rebinding-refused', {
      body: await page.screenshot(),
      contentType: 'image/png',
    });
    // Positive control: the same browser reaches the panel by its real address.
    const ok = await page.goto(`${warden.origin}/`);
    expect(ok?.status()).toBe(200);
  } finally {
    await browser.close();
  }
});
