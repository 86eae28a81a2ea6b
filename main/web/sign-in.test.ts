/**
 * Signing a browser in without a credential in any URL it is started with: a one-time code
 * (once, within seconds) or a form POST of the token gives an HttpOnly, SameSite=Strict cookie,
 * and only a live cookie or the token opens the contract WebSocket.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../app/contract/index';
import type { Reply } from '../../app/contract/reply';
import { type SignIn, createSignIn, cookieValue } from './sign-in';
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

function sessionCookie(answer: RawAnswer): string {
  const set = answer.headers['set-cookie'];
  const line = Array.isArray(set) ? set[0] : set;
  expect(line).toMatch(/; HttpOnly; SameSite=Strict; Path=\//);
  return line!.split(';')[0]!;
}

describe('sign-in', () => {
  it('a one-time code gives a cookie once; the cookie opens the WebSocket', async () => {
    const path = new URL(web.signInUrl()).pathname + new URL(web.signInUrl()).search;
    const url = new URL(web.signInUrl());
    const first = await send(web.port, url.pathname + url.search, {});
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = sessionCookie(first);
    expect((await upgrade({ Cookie: cookie })).upgraded).toBe(true);

    const again = await send(web.port, url.pathname + url.search, {});
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(path).toMatch(/^\/login\?code=[A-Za-z0-9_-]{43}$/);
  });

  it('refuses the WebSocket without a session, with a made-up cookie, or with the code itself', async () => {
    const url = new URL(web.signInUrl());
    const code = url.searchParams.get('code')!;
    const attempts: Record<string, string>[] = [
      {},
      { Cookie: `warden-session-${web.port}=${code}` },
      { Cookie: `warden-session-${web.port}=${'A'.repeat(43)}` },
      { 'Sec-WebSocket-Protocol': `warden.v1, warden.token.${code}` },
    ];
    for (const extra of attempts) {
      const answer = await upgrade(extra);
      expect(answer.upgraded, JSON.stringify(extra)).toBe(false);
      expect(answer.status).toBe(401);
    }
    expect((await send(web.port, '/session', {})).status).toBe(401);
  });

  it('signs in with the token by a form POST from its own page only', async () => {
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
    const right = await send(web.port, '/login', { ...form, Origin: origin }, 'POST', body);
    expect(right.status).toBe(303);
    const cookie = sessionCookie(right);
    expect((await send(web.port, '/session', { Cookie: cookie })).status).toBe(204);
    const page = await send(web.port, '/login', {});
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post"');
  });

  it('a code expires after its time', () => {
    let now = 1_000;
    const signIn: SignIn = createSignIn({
      port: 1,
      origin: 'http://127.0.0.1:1',
      isToken: () => false,
      now: () => now,
    });
    const code = signIn.issueCode();
    now += 30_001;
    let status = 0;
    const res = {
      writeHead: (s: number) => ((status = s), res),
      end: () => undefined,
    };
    const req = { url: `/login?code=${code}`, method: 'GET', headers: {} };
    signIn.handle(req as never, res as never, {});
    expect(status).toBe(401);
    expect(cookieValue('a=1; warden-session-1=xyz', 'warden-session-1')).toBe('xyz');
  });
});
