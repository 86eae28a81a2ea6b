/**
 * Signing a browser in without a credential in any URL and without a cookie: a one-time code
 * (once, within seconds) or a form POST of the token forwards a code in the fragment, which only
 * Warden's own origin can trade for a session secret; only a live secret or the token opens the
 * contract WebSocket.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../app/contract/index';
import type { Reply } from '../../app/contract/reply';
import { SESSION_TTL_MS, type SignIn, createSignIn } from './sign-in';
import { type WebServer, startWebServer } from './web-server';
import type { WebCore } from './ws-bridge';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { type RawAnswer, rawRequest, upgradeHeaders } from '../../test/helpers/web-fakes';

const send = (
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
) => rawRequest(port, path, headers, { method, body });

const core: WebCore = {
  handle: (): Promise<Reply> => Promise.resolve({ ok: true, value: null }),
  subscribe: (_listener: (event: EventName, payload: unknown) => void) => () => undefined,
};

let dir = '';
let web: WebServer;
let origin: string;

tempDirEach('warden-sign-in-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>');
  web = await startWebServer({ core, staticDir: dir });
  origin = `http://127.0.0.1:${web.port}`;
});
afterEach(async () => {
  await web.close();
});

const upgrade = (extra: Record<string, string>) =>
  send(
    web.port,
    '/ws',
    upgradeHeaders({ 'Sec-WebSocket-Protocol': 'warden.v1', Origin: origin, ...extra }),
  );

/** The code `/login` forwarded to the page: `/#code=CODE`, nothing set in the browser. */
function forwardedCode(answer: RawAnswer): string {
  expect(answer.status).toBe(303);
  expect(answer.headers['set-cookie']).toBeUndefined();
  const code = /^\/#code=([A-Za-z0-9_-]{43})$/.exec(String(answer.headers.location))?.[1];
  expect(code).toBeDefined();
  return code!;
}

/** Trades `code` at `/session` as the page does, from `from`; the answer and its secret. */
async function exchange(code: string, from = origin) {
  const answer = await send(
    web.port,
    '/session',
    { 'Content-Type': 'application/json', Origin: from },
    'POST',
    JSON.stringify({ code }),
  );
  const secret = answer.status === 200 ? (JSON.parse(answer.body) as { session: string }) : null;
  return { answer, secret: secret?.session };
}

const withSecret = (secret: string) => ({
  'Sec-WebSocket-Protocol': `warden.v1, warden.token.${secret}`,
});

describe('sign-in', () => {
  it('forwards a one-time code to the page, traded once for a secret that opens /ws', async () => {
    const url = new URL(web.signIn().fallbackUrl);
    expect(url.pathname + url.search).toMatch(/^\/login\?code=[A-Za-z0-9_-]{43}$/);
    const code = forwardedCode(await send(web.port, url.pathname + url.search, {}));
    expect(code).toBe(url.searchParams.get('code'));

    const { answer, secret } = await exchange(code);
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await upgrade(withSecret(secret!))).upgraded).toBe(true);
    const checked = await send(web.port, '/session', { 'X-Warden-Session': secret! });
    expect(checked.status).toBe(204);

    // Spent: neither the link nor the exchange works again.
    const again = await send(web.port, url.pathname + url.search, {});
    expect(again.status).toBe(401);
    expect(again.body).toContain('already used or has expired');
    expect((await exchange(code)).answer.status).toBe(401);
  });

  it('trades a code only for a POST from its own origin, and keeps it for that page', async () => {
    const code = new URL(web.signIn().fallbackUrl).searchParams.get('code')!;
    for (const from of [
      'http://127.0.0.1:1',
      'http://evil.example',
      'null',
      `http://localhost:${web.port}`,
    ]) {
      expect((await exchange(code, from)).answer.status, from).toBe(403);
    }
    const noOrigin = await send(web.port, '/session', {}, 'POST', JSON.stringify({ code }));
    expect(noOrigin.status).toBe(403);
    expect((await send(web.port, '/session', {}, 'PUT', '')).status).toBe(405);
    // None of those spent it.
    expect((await exchange(code)).answer.status).toBe(200);
  });

  it('refuses a malformed or oversized exchange', async () => {
    const json = { 'Content-Type': 'application/json', Origin: origin };
    for (const body of ['', '{', '{"code":1}', JSON.stringify({ code: 'x'.repeat(5000) })]) {
      expect((await send(web.port, '/session', json, 'POST', body)).status, body).toBe(401);
    }
  });

  it('refuses /ws without a session, with a cookie, or with the code itself', async () => {
    const code = new URL(web.signIn().fallbackUrl).searchParams.get('code')!;
    const secret = (await exchange(new URL(web.signIn().fallbackUrl).searchParams.get('code')!))
      .secret!;
    const attempts: Record<string, string>[] = [
      {},
      // A cookie is never a session, not even one carrying a live secret.
      { Cookie: `warden-session-${web.port}=${secret}` },
      { Cookie: `warden-session=${secret}` },
      { 'X-Warden-Session': secret },
      withSecret(code),
      withSecret('A'.repeat(43)),
    ];
    for (const extra of attempts) {
      const answer = await upgrade(extra);
      expect(answer.upgraded, JSON.stringify(extra)).toBe(false);
      expect(answer.status).toBe(401);
    }
    expect((await send(web.port, '/session', {})).status).toBe(401);
    expect((await send(web.port, '/session', { Cookie: `warden-session=${secret}` })).status).toBe(
      401,
    );
    expect((await send(web.port, '/session', { 'X-Warden-Session': code })).status).toBe(401);
  });

  it('refuses a check of the secret from another origin (no preflight passes)', async () => {
    const preflight = await send(
      web.port,
      '/session',
      {
        Origin: 'http://127.0.0.1:1',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-warden-session',
      },
      'OPTIONS',
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
  });

  it('signs in with the token by a POST from its own page only, forwarding a code', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const body = `token=${web.token}`;
    const foreign = await send(
      web.port,
      '/login',
      { ...form, Origin: 'http://evil.example' },
      'POST',
      body,
    );
    expect(foreign.status).toBe(403);
    const wrong = await send(web.port, '/login', { ...form, Origin: origin }, 'POST', 'token=no');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.location).toBeUndefined();
    const right = await send(web.port, '/login', { ...form, Origin: origin }, 'POST', body);
    const { secret } = await exchange(forwardedCode(right));
    expect((await send(web.port, '/session', { 'X-Warden-Session': secret! })).status).toBe(204);
    const page = await send(web.port, '/login', {});
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post"');
  });

  it('a code expires after its time; a session after twelve hours', async () => {
    let now = 1_000;
    const signIn = createSignIn({ ...atLocal, isToken: () => false, now: () => now });
    const stale = signIn.issueCode();
    now += 30_001;
    expect((await answer(signIn, `/login?code=${stale}`)).status).toBe(401);
    expect((await trade(signIn, stale)).status).toBe(401);

    const fresh = signIn.issueCode();
    expect((await answer(signIn, `/login?code=${fresh}`)).location).toBe(`/#code=${fresh}`);
    const secret = (await trade(signIn, fresh)).session!;
    expect(signIn.isSession(secret)).toBe(true);
    now += SESSION_TTL_MS;
    expect(signIn.isSession(secret)).toBe(true);
    now += 1;
    expect(signIn.isSession(secret)).toBe(false);
  });

  it('keeps 64 sessions at most, dropping the oldest', async () => {
    const signIn = createSignIn({ ...atLocal, isToken: () => false });
    const secrets: string[] = [];
    for (let i = 0; i < 65; i++) secrets.push((await trade(signIn, signIn.issueCode())).session!);
    expect(signIn.isSession(secrets[0]!)).toBe(false);
    expect(secrets.slice(1).every((s) => signIn.isSession(s))).toBe(true);
  });
});

const local = 'http://127.0.0.1:1';
const atLocal = { originOf: () => local, fallbackOrigin: local };

/** What `signIn` answers to one request from `local` (status, Location and body). */
async function answer(signIn: SignIn, url: string, method = 'GET', body?: string) {
  const res = { status: 0, location: '', body: '' };
  await new Promise<void>((resolve) => {
    const writer = {
      writeHead: (s: number, h: Record<string, string>) => {
        res.status = s;
        res.location = h.Location ?? '';
        return writer;
      },
      end: (b?: Buffer) => {
        res.body = b?.toString('utf8') ?? '';
        resolve();
      },
    };
    function* chunks() {
      if (body !== undefined) yield Buffer.from(body);
    }
    const req = Object.assign(chunks(), { url, method, headers: { origin: local } });
    signIn.handle(req as never, writer as never, {});
  });
  return res;
}

/** Trades `code` at `/session` of `signIn`; the status and the secret given. */
async function trade(signIn: SignIn, code: string) {
  const res = await answer(signIn, '/session', 'POST', JSON.stringify({ code }));
  const session = res.status === 200 ? (JSON.parse(res.body) as { session: string }).session : '';
  return { status: res.status, session: session || undefined };
}
