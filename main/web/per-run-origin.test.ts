/**
 * The web server at its two addresses: the per-run `*.localhost` name serves the panel, its
 * sign-in and its socket, each answer speaking of the origin the request came in on; 127.0.0.1
 * does too, as the fallback, and says so on /login; another run's name gets nothing.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../app/contract/index';
import type { Reply } from '../../app/contract/reply';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { rawRequest, upgradeHeaders } from '../../test/helpers/web-fakes';
import { PROBE_TIMEOUT_MS, RESOLVES_LOCALHOST, signInFileHtml } from './sign-in-file';
import { FALLBACK_NOTICE } from './sign-in-page';
import { type WebServer, startWebServer } from './web-server';
import type { WebCore } from './ws-bridge';

const core: WebCore = {
  handle: (): Promise<Reply> => Promise.resolve({ ok: true, value: null }),
  subscribe: (_listener: (event: EventName, payload: unknown) => void) => () => undefined,
};

let dir = '';
let web: WebServer;
/** `<32 hex>.localhost:PORT` and `127.0.0.1:PORT`, with their origins. */
let runHost: string;
let runOrigin: string;
let fallbackHost: string;
let fallbackOrigin: string;

tempDirEach('warden-per-run-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>');
  web = await startWebServer({ core, staticDir: dir });
  runOrigin = new URL(web.url).origin;
  runHost = new URL(web.url).host;
  fallbackOrigin = new URL(web.fallbackUrl).origin;
  fallbackHost = new URL(web.fallbackUrl).host;
});
afterEach(() => web.close());

/** One request with exactly these headers; `body` makes it a POST unless `method` says. */
const send = (path: string, headers: Record<string, string>, body?: string, method?: string) =>
  rawRequest(web.port, path, headers, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    body,
    setHost: false,
  });

/** Trades `code` as the page at `origin` does, sent to `host`; the status and the secret. */
async function trade(code: string, host: string, origin: string) {
  const json = { Host: host, Origin: origin, 'Content-Type': 'application/json' };
  const answer = await send('/session', json, JSON.stringify({ code }));
  const secret = answer.status === 200 ? (JSON.parse(answer.body) as { session: string }) : null;
  return { status: answer.status, secret: secret?.session };
}

describe('the per-run address', () => {
  it('serves the panel with a CSP naming its own socket origin', async () => {
    const res = await send('/', { Host: runHost });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain(`connect-src 'self' ws://${runHost}`);
    const fallback = await send('/', { Host: fallbackHost });
    expect(fallback.headers['content-security-policy']).not.toContain(runHost);
  });

  it('refuses another run, another name and its refusals never name this run', async () => {
    const other = `${'ab'.repeat(16)}.localhost:${web.port}`;
    for (const host of [other, `other.localhost:${web.port}`]) {
      const res = await send('/', { Host: host });
      expect(res.status, host).toBe(421);
      expect(JSON.stringify(res)).not.toContain(runHost);
    }
    const foreign = await send('/', { Host: runHost, Origin: `http://${other}` });
    expect(foreign.status).toBe(403);
  });

  it("answers a sign-in's probe there only, once, readable from the sign-in file", async () => {
    const { probeUrl, probeAnswer } = web.signIn();
    const { pathname, search } = new URL(probeUrl);
    expect(new URL(probeUrl).origin).toBe(runOrigin);
    const onFallback = await send(pathname + search, { Host: fallbackHost });
    expect(onFallback.status).toBe(404);
    expect(onFallback.headers['cross-origin-resource-policy']).toBe('same-origin');
    const probe = await send(pathname + search, { Host: runHost, Origin: 'null' });
    expect(probe.status).toBe(200);
    expect(probe.body.trim()).toBe(probeAnswer);
    expect(probe.headers['access-control-allow-origin']).toBe('*');
    expect(probe.headers['cross-origin-resource-policy']).toBe('cross-origin');
    // Spent: whoever asks again (a rebinding page that learnt the query) gets no answer.
    const again = await send(pathname + search, { Host: runHost });
    expect(again.status).toBe(404);
    expect(again.body).not.toContain(probeAnswer);
    expect((await send('/reachable?q=made-up-query', { Host: runHost })).status).toBe(404);
  });

  it('gives one code at both addresses; it signs in on the address it came in on', async () => {
    const links = web.signIn();
    const url = new URL(links.url);
    expect(url.origin).toBe(runOrigin);
    expect(new URL(links.fallbackUrl).origin).toBe(fallbackOrigin);
    expect(new URL(links.fallbackUrl).search).toBe(url.search);
    const code = url.searchParams.get('code')!;

    const login = await send(url.pathname + url.search, { Host: runHost });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe(`/#code=${code}`);
    // The page of one address cannot trade at the other, nor another run's page.
    expect((await trade(code, runHost, fallbackOrigin)).status).toBe(403);
    expect((await trade(code, fallbackHost, runOrigin)).status).toBe(403);
    const { status, secret } = await trade(code, runHost, runOrigin);
    expect(status).toBe(200);

    const protocol = `warden.v1, warden.token.${secret!}`;
    const opened = await send(
      '/ws',
      upgradeHeaders({ Host: runHost, Origin: runOrigin, 'Sec-WebSocket-Protocol': protocol }),
    );
    expect(opened.upgraded).toBe(true);
  });

  it('posts the /login form to the address it came in on; 127.0.0.1 says it is the fallback', async () => {
    const onRun = await send('/login', { Host: runHost });
    expect(onRun.body).toContain(`<form method="post" action="${runOrigin}/login">`);
    expect(onRun.body).not.toContain('role="note"');
    const onFallback = await send('/login', { Host: fallbackHost });
    expect(onFallback.body).toContain(`<form method="post" action="${fallbackOrigin}/login">`);
    expect(onFallback.body).toContain(`<p role="note">${FALLBACK_NOTICE}</p>`);
    expect(onFallback.body).not.toContain(runHost);

    const form = { Host: runHost, 'Content-Type': 'application/x-www-form-urlencoded' };
    const body = `token=${web.token}`;
    expect((await send('/login', { ...form, Origin: fallbackOrigin }, body)).status).toBe(403);
    const signedIn = await send('/login', { ...form, Origin: runOrigin }, body);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toMatch(/^\/#code=[\w-]{43}$/);
  });
});

describe('signInFileHtml', () => {
  it('probes the per-run name, goes there only on its answer, and else offers 127.0.0.1', () => {
    const links = web.signIn();
    const html = signInFileHtml(links);
    expect(links.probeUrl).toMatch(new RegExp(`^${runOrigin}/reachable\\?q=[\\w-]{22}$`));
    expect(html).toContain(`fetch(${JSON.stringify(links.probeUrl)}, { cache: 'no-store'`);
    const [answer, url, fallback] = [links.probeAnswer, links.url, links.fallbackUrl].map((s) =>
      JSON.stringify(s),
    );
    expect(html).toContain(`if (t.trim() === ${answer!} && !done)`);
    expect(html).toContain(`location.replace(${url!}); } else unreached();`);
    expect(html).toContain(`setTimeout(unreached, ${PROBE_TIMEOUT_MS})`);
    // Not reached: the page says so, and the fallback is the user's choice, a link.
    expect(html).toContain(`<div id="unreached" role="alert" hidden>`);
    expect(html).toContain(`<a href=${fallback!}>the fallback address</a>`);
    // A browser that may ask DNS for the name never probes it: to 127.0.0.1 at once.
    expect(html).toContain(
      `if (!${String(RESOLVES_LOCALHOST)}.test(navigator.userAgent)) { location.replace(${fallback!}); return; }`,
    );
    // Without scripts: to the per-run address.
    expect(html).toContain(
      `<noscript><meta http-equiv="refresh" content="0;url=${links.url}"></noscript>`,
    );
  });

  it.each([
    [
      'Chrome',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
      true,
    ],
    [
      'Edge',
      'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0',
      true,
    ],
    ['Firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', true],
    ['Safari', 'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15', false],
    [
      'Chrome on iOS',
      'Mozilla/5.0 (iPhone) AppleWebKit/605.1.15 CriOS/131.0 Mobile/15E148 Safari/604.1',
      false,
    ],
  ])(
    'tells by the user agent of %s whether it resolves *.localhost itself',
    (_name, agent, resolves) => {
      expect(RESOLVES_LOCALHOST.test(agent)).toBe(resolves);
    },
  );
});
