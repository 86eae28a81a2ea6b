/**
 * The page's side of signing in, against the real web server (plain Node; a stand-in page whose
 * fetch goes to the server as the panel's origin): a code in the fragment leaves the address bar
 * at once and is traded for a secret kept in the origin's storage, which opens the WebSocket; a
 * page without one, or with one the server no longer knows, goes to /login. Signing out ends the
 * session on the server, closes its sockets in every tab (which stop rather than retry), and
 * sends the page to /login saying so.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type WebServer, startWebServer } from '../../main/web/web-server';
import {
  SESSION_STORAGE_KEY,
  type SessionPage,
  browserSession,
  signOutOfBrowser,
} from '../../renderer/src/contract-client/browser-session';
import { WsTransport } from '../../renderer/src/contract-client/ws-transport';
import { tempDirEach } from '../helpers/temp-dir';
import { NamingCore } from '../helpers/web-fakes';

let dir = '';
let web: WebServer;
let origin = '';

tempDirEach('warden-session-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '');
  web = await startWebServer({ core: new NamingCore(), staticDir: dir });
  origin = `http://127.0.0.1:${web.port}`;
});
afterEach(async () => {
  await web.close();
});

/** A page at `/` with `hash`, its address bar, storage and trips to /login recorded. */
function stubPage(hash: string, stored?: string) {
  const storage = new Map<string, string>(stored ? [[SESSION_STORAGE_KEY, stored]] : []);
  const seen = { replacedWith: [] as string[], wentTo: [] as string[], fetched: [] as string[] };
  const location = {
    hash,
    pathname: '/',
    search: '',
    replace: (to: string) => void seen.wentTo.push(to),
  };
  const page = {
    location,
    history: {
      replaceState: (_state: unknown, _title: string, to: string) => {
        seen.replacedWith.push(to);
        location.hash = '';
      },
    },
    localStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    },
    // A browser adds its Origin to a POST; Node's fetch is told to.
    fetch: (path: string, init: RequestInit) => {
      seen.fetched.push(`${init.method ?? 'GET'} ${path}`);
      const headers = { ...(init.headers as Record<string, string>), Origin: origin };
      return fetch(`${origin}${path}`, { ...init, headers });
    },
  };
  return { page: page as unknown as SessionPage, storage, seen };
}

const forwardedCode = () => new URL(web.signIn().fallbackUrl).searchParams.get('code')!;

function connect(credential: () => Promise<string | undefined>): Promise<WsTransport> {
  const transport = new WsTransport({
    url: `ws://127.0.0.1:${web.port}/ws`,
    token: credential,
    createSocket: (url, protocols) => new WebSocket(url, protocols, { origin }),
  });
  return transport.call('servers.list', {}).then(
    () => transport,
    (error: unknown) => {
      transport.close();
      throw error;
    },
  );
}

describe('browserSession', () => {
  it('takes the code out of the address bar, trades it, keeps the secret, opens /ws', async () => {
    const { page, storage, seen } = stubPage(`#code=${forwardedCode()}`);
    const session = browserSession(page);
    const transport = await connect(session);
    expect(seen.replacedWith).toEqual(['/']);
    expect(seen.wentTo).toEqual([]);
    const secret = storage.get(SESSION_STORAGE_KEY);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(transport.status).toEqual({ kind: 'open' });
    transport.close();
    // A later connection checks the stored secret and offers it again.
    await expect(session()).resolves.toBe(secret);
    expect(seen.fetched).toEqual(['POST /session', 'GET /session']);
  });

  it('a stored secret opens /ws from a fresh page', async () => {
    const first = stubPage(`#code=${forwardedCode()}`);
    await expect(browserSession(first.page)()).resolves.toBeDefined();
    const secret = first.storage.get(SESSION_STORAGE_KEY)!;
    const { page, seen } = stubPage('', secret);
    (await connect(browserSession(page))).close();
    expect(seen.wentTo).toEqual([]);
  });

  it('sends a page without a secret to /login', async () => {
    const { page, seen } = stubPage('');
    await expect(browserSession(page)()).resolves.toBeUndefined();
    expect(seen).toEqual({ replacedWith: [], wentTo: ['/login'], fetched: [] });
  });

  it('forgets a secret the server does not know and goes to /login', async () => {
    const { page, storage, seen } = stubPage('', 'A'.repeat(43));
    await expect(browserSession(page)()).resolves.toBeUndefined();
    expect(storage.size).toBe(0);
    expect(seen.wentTo).toEqual(['/login']);
  });

  it('a spent or malformed code leaves the address bar too, and goes to /login', async () => {
    const code = forwardedCode();
    await expect(browserSession(stubPage(`#code=${code}`).page)()).resolves.toBeDefined();
    for (const hash of [`#code=${code}`, '#code=<script>']) {
      const { page, storage, seen } = stubPage(hash);
      await expect(browserSession(page)()).resolves.toBeUndefined();
      expect(seen.replacedWith, hash).toEqual(['/']);
      expect(seen.wentTo, hash).toEqual(['/login']);
      expect(storage.size, hash).toBe(0);
    }
  });

  it('keeps a stored secret while the server cannot be reached (the socket retries)', async () => {
    const { page, storage, seen } = stubPage('', 'B'.repeat(43));
    await web.close();
    await expect(browserSession(page)()).resolves.toBe('B'.repeat(43));
    expect(storage.size).toBe(1);
    expect(seen.wentTo).toEqual([]);
  });
});

describe('signOutOfBrowser', () => {
  it('ends the session on the server, forgets it, and shows the sign-in page', async () => {
    const { page, storage, seen } = stubPage(`#code=${forwardedCode()}`);
    const transport = await connect(browserSession(page));
    const secret = storage.get(SESSION_STORAGE_KEY)!;
    // Another tab of the same browser shares the storage, and signs out.
    const other = stubPage('', secret);
    await signOutOfBrowser(other.page);
    expect(other.seen.fetched).toEqual(['DELETE /session']);
    expect(other.seen.wentTo).toEqual(['/login?ended=signed-out']);
    expect(other.storage.size).toBe(0);
    const live = await fetch(`${origin}/session`, { headers: { 'X-Warden-Session': secret } });
    expect(live.status).toBe(401);
    // This tab's socket was closed for it: the transport says so, and does not retry.
    await expect.poll(() => transport.status).toEqual({ kind: 'signed-out', why: 'signed-out' });
    await new Promise((r) => setTimeout(r, 400));
    expect(transport.status).toEqual({ kind: 'signed-out', why: 'signed-out' });
    expect(seen.fetched).toEqual(['POST /session']);
  });

  it('forgets the session even when the server cannot be reached, and says so', async () => {
    const { page, storage, seen } = stubPage('', 'C'.repeat(43));
    await web.close();
    await signOutOfBrowser(page);
    expect(storage.size).toBe(0);
    expect(seen.wentTo).toEqual(['/login?ended=unconfirmed']);
  });
});
