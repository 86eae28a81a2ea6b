/**
 * The web server's defences seen from a real browser: a page on another origin cannot drive it
 * even when it knows the token, another local user's web server on 127.0.0.1 that the signed-in
 * browser is sent to gets nothing that opens the contract socket, a DNS-rebinding name pointing
 * at 127.0.0.1 gets nothing, and the control panel runs under its strict CSP without a violation.
 */
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from '@playwright/test';
import { rawRequest, upgradeHeaders } from '../test/helpers/web-fakes';
import { attackPage } from './attack-page';
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

test('a local server the signed-in browser is sent to gets nothing that opens /ws', async ({
  page,
  warden,
}) => {
  // The user signs in as a person does, by the /login form with the printed token.
  await page.goto(`${warden.origin}/login`);
  await page.getByLabel('Session token').fill(new URL(warden.url).hash.replace('#token=', ''));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('No servers yet')).toBeVisible();
  const secret = await page.evaluate(() => localStorage.getItem('warden-session'));
  // Control: this browser does send 127.0.0.1's cookies to every port, as the attack needs.
  await page.goto(`${warden.fallbackOrigin}/login`);
  await page.evaluate(() => (document.cookie = 'cross-port-probe=1; path=/'));
  await page.goto(warden.origin);
  await expect(page.getByText('No servers yet')).toBeVisible();

  // Another local user's server: it records every request and serves a page that tries all it can.
  const heard: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const evil = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      heard.push({ path: req.url ?? '', headers: req.headers, body });
      const html = req.url === '/' ? attackPage(warden.origin) : '';
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(html);
    });
  });
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  try {
    const evilPort = (evil.address() as AddressInfo).port;
    await page.goto(`http://127.0.0.1:${evilPort}/`);
    await expect.poll(() => heard.some((r) => r.path === '/report')).toBe(true);
    const report = JSON.parse(heard.find((r) => r.path === '/report')!.body) as {
      storage: Record<string, string>;
      cookie: string;
      tries: Record<string, unknown>;
    };
    expect(report.storage).toEqual({});
    expect(report.cookie).toBe('cross-port-probe=1');
    expect(report.tries).toEqual({
      'same-site fetch': 200,
      'read /session': 'TypeError',
      'check a secret': 'TypeError',
      'trade a code': 'TypeError',
      'sign out': 'TypeError',
      // Cross-Origin-Resource-Policy: same-origin keeps even an opaque answer from it.
      'opaque /session': 'TypeError',
      'open /ws': 'closed',
    });

    // The attacker replays everything it received, forging Warden's Origin, as a script can
    // (the fallback's: the per-run name is not given to it, and Host and Origin must agree).
    const everything = JSON.stringify(heard);
    expect(everything).not.toContain(new URL(warden.origin).hostname);
    const candidates = new Set(everything.match(/[A-Za-z0-9_-]{16,}/g) ?? []);
    const cookies = new Set(heard.flatMap((r) => r.headers.cookie ?? []));
    const port = Number(new URL(warden.origin).port);
    const upgrade = (extra: Record<string, string>) =>
      rawRequest(
        port,
        '/ws',
        upgradeHeaders({
          Origin: warden.fallbackOrigin,
          'Sec-WebSocket-Protocol': 'warden.v1',
          ...extra,
        }),
        {},
      );
    const opened: string[] = [];
    for (const c of candidates) {
      const offered = { 'Sec-WebSocket-Protocol': `warden.v1, warden.token.${c}` };
      if ((await upgrade(offered)).upgraded) opened.push(`subprotocol ${c}`);
      if ((await upgrade({ Cookie: `warden-session-${port}=${c}` })).upgraded) opened.push(c);
    }
    for (const c of cookies) if ((await upgrade({ Cookie: c })).upgraded) opened.push(c);
    expect(candidates.size).toBeGreaterThan(0);
    expect(cookies.size).toBeGreaterThan(0);
    expect(opened).toEqual([]);
    expect(heard.find((r) => r.path === '/c')?.headers.cookie).toBe('cross-port-probe=1');
    // Control: the secret the panel holds (not signed out by the page) does open the socket.
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(everything).not.toContain(secret!);
    const withSecret = { 'Sec-WebSocket-Protocol': `warden.v1, warden.token.${secret!}` };
    expect((await upgrade(withSecret)).upgraded).toBe(true);
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
