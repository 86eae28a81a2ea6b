/**
 * A browser's session ends, and its sockets with it: `DELETE /session` with the secret signs it
 * out at once and closes every socket opened with it; an expired session's sockets are closed by
 * the next heartbeat. Other sessions and a script's token are left alone.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { SESSION_ENDED_CODE } from '../../app/contract/wire';
import { SESSION_TTL_MS } from './sign-in';
import { type WebServer, startWebServer } from './web-server';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { NamingCore, rawRequest, upgradeHeaders } from '../../test/helpers/web-fakes';

let dir = '';
let web: WebServer;
let origin = '';
let now = 1_000;

tempDirEach('warden-sign-out-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '');
  now = 1_000;
  web = await startWebServer({
    core: new NamingCore(),
    staticDir: dir,
    heartbeatMs: 50,
    now: () => now,
  });
  origin = `http://127.0.0.1:${web.port}`;
});
afterEach(async () => {
  await web.close();
});

const send = (path: string, headers: Record<string, string>, method = 'GET', body?: string) =>
  rawRequest(web.port, path, headers, { method, body });

/** A fresh session secret, signed in as the page does. */
async function signIn(): Promise<string> {
  const code = new URL(web.signIn().fallbackUrl).searchParams.get('code')!;
  const json = { 'Content-Type': 'application/json', Origin: origin };
  const answer = await send('/session', json, 'POST', JSON.stringify({ code }));
  return (JSON.parse(answer.body) as { session: string }).session;
}

const signOut = (secret: string, extra: Record<string, string> = {}) =>
  send('/session', { 'X-Warden-Session': secret, ...extra }, 'DELETE');

const opens = async (credential: string) =>
  (
    await send(
      '/ws',
      upgradeHeaders({
        'Sec-WebSocket-Protocol': `warden.v1, warden.token.${credential}`,
        Origin: origin,
      }),
    )
  ).upgraded;

/** An open contract socket with `credential`, and how it closed once it does. */
async function socket(credential: string) {
  const protocols = ['warden.v1', `warden.token.${credential}`];
  const ws = new WebSocket(`ws://127.0.0.1:${web.port}/ws`, protocols, { origin });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: String(reason) })),
  );
  await new Promise((resolve, reject) =>
    ws.once('open', resolve).once('unexpected-response', reject),
  );
  return { ws, closed };
}

describe('sign-out', () => {
  it('ends the session at once: the secret no longer opens /ws, once only', async () => {
    const secret = await signIn();
    const other = await signIn();
    expect(await opens(secret)).toBe(true);
    expect((await signOut(secret, { Origin: origin })).status).toBe(204);
    expect(await opens(secret)).toBe(false);
    expect((await send('/session', { 'X-Warden-Session': secret })).status).toBe(401);
    expect((await signOut(secret)).status).toBe(401);
    // Another browser's session, and the token, are not touched.
    expect(await opens(other)).toBe(true);
    expect((await signOut(web.token)).status).toBe(401);
    expect(await opens(web.token)).toBe(true);
  });

  it('needs the secret itself, from our origin or none', async () => {
    const secret = await signIn();
    expect((await send('/session', {}, 'DELETE')).status).toBe(401);
    expect((await signOut(secret, { Origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await send('/session', { Cookie: `warden-session=${secret}` }, 'DELETE')).status).toBe(
      401,
    );
    expect(await opens(secret)).toBe(true);
    expect((await send('/session', {}, 'PUT')).headers.allow).toBe('GET, POST, DELETE');
  });

  it('closes every socket opened with the session, and only those', async () => {
    const secret = await signIn();
    const first = await socket(secret);
    const second = await socket(secret);
    const other = await socket(await signIn());
    const script = await socket(web.token);
    expect((await signOut(secret)).status).toBe(204);
    const ended = { code: SESSION_ENDED_CODE, reason: 'signed-out' };
    expect(await first.closed).toEqual(ended);
    expect(await second.closed).toEqual(ended);
    await new Promise((r) => setTimeout(r, 150));
    expect([other.ws.readyState, script.ws.readyState]).toEqual([WebSocket.OPEN, WebSocket.OPEN]);
    other.ws.close();
    script.ws.close();
  });

  it('closes the sockets of a session once it expired; the token socket stays', async () => {
    const session = await socket(await signIn());
    const script = await socket(web.token);
    now += SESSION_TTL_MS;
    await new Promise((r) => setTimeout(r, 150));
    expect(session.ws.readyState).toBe(WebSocket.OPEN);
    now += 1;
    expect(await session.closed).toEqual({ code: SESSION_ENDED_CODE, reason: 'expired' });
    expect(script.ws.readyState).toBe(WebSocket.OPEN);
    script.ws.close();
  });

  it('says on /login why the browser was signed out, in fixed words only', async () => {
    const page = (ended: string) => send(`/login?ended=${ended}`, {}).then((a) => a.body);
    expect(await page('signed-out')).toContain('<p role="status">You signed out');
    expect(await page('expired')).toContain('a sign-in lasts 12 hours');
    expect(await page('unconfirmed')).toContain('Warden did not answer');
    for (const odd of ['%3Cscript%3E', 'signed-out2', '']) {
      expect(await page(odd), odd).not.toContain('role="status"');
    }
    // Its one style is allowed by its hash; nothing else runs or loads.
    const answer = await send('/login?ended=signed-out', {});
    const style = /<style>(.*?)<\/style>/.exec(answer.body)![1]!;
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(answer.headers['content-security-policy']).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; form-action 'self'; base-uri 'none'; ` +
        "frame-ancestors 'none'",
    );
  });
});
