/**
 * The web server refuses foreign Hosts, foreign Origins and missing tokens or session secrets, and
 * relays the contract.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Reply } from '../../app/contract/reply';
import { type WebServer, startWebServer } from './web-server';
import type { WebCore } from './ws-bridge';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { FakeCoreEvents, rawRequest, upgradeHeaders } from '../../test/helpers/web-fakes';

/** Sends one HTTP request with exactly the headers given (no automatic Host). */
const raw = (port: number, path: string, headers: Record<string, string>, method = 'GET') =>
  rawRequest(port, path, headers, { method, setHost: false });

class FakeCore extends FakeCoreEvents implements WebCore {
  calls: Array<{ op: string; input: unknown }> = [];
  handle(op: string, input: unknown): Promise<Reply> {
    this.calls.push({ op, input });
    return Promise.resolve({ ok: true, value: { echoed: op } });
  }
}

let dir = '';
let core: FakeCore;
let web: WebServer;
let host: string;
let origin: string;

tempDirEach('warden-web-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>');
  await writeFile(join(dir, '..', 'warden-web-secret.txt'), 'secret');
  core = new FakeCore();
  web = await startWebServer({ core, staticDir: dir });
  host = `127.0.0.1:${web.port}`;
  origin = `http://${host}`;
});

afterEach(async () => {
  await web.close();
  await rm(join(dir, '..', 'warden-web-secret.txt'), { force: true });
});

describe('startWebServer', () => {
  it('has per-run and loopback URLs without any credential, and a token of 32 random bytes', () => {
    expect(web.url).toMatch(new RegExp(`^http://[0-9a-f]{32}\\.localhost:${web.port}/$`));
    expect(web.fallbackUrl).toBe(`http://127.0.0.1:${web.port}/`);
    expect(Buffer.from(web.token, 'base64url')).toHaveLength(32);
    expect(web.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('serves the page with security headers to the right Host', async () => {
    const res = await raw(web.port, '/', { Host: host });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>Warden</title>');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it.each(['evil.example:80', 'evil.example:PORT', 'localhost', '127.0.0.1', '[::1]:PORT'])(
    'refuses HTTP with Host %s (DNS rebinding)',
    async (badHost) => {
      const res = await raw(web.port, '/', { Host: badHost.replace('PORT', String(web.port)) });
      expect(res.status).toBe(421);
      expect(res.body).not.toContain('Warden');
    },
  );

  it('refuses HTTP with localhost:PORT as Host: only the bound address is accepted', async () => {
    const res = await raw(web.port, '/', { Host: `localhost:${web.port}` });
    expect(res.status).toBe(421);
  });

  it('refuses HTTP with a foreign Origin', async () => {
    const res = await raw(web.port, '/', { Host: host, Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });

  it('does not serve files outside the renderer directory', async () => {
    for (const path of [
      '/../warden-web-secret.txt',
      '/%2e%2e/warden-web-secret.txt',
      '/..%2fwarden-web-secret.txt',
    ]) {
      const res = await raw(web.port, path, { Host: host });
      expect(res.status, path).toBe(404);
      expect(res.body).not.toContain('secret');
    }
  });

  it('refuses methods other than GET and HEAD', async () => {
    const res = await raw(web.port, '/', { Host: host, 'Content-Length': '0' }, 'POST');
    expect(res.status).toBe(405);
  });
});

describe('WebSocket upgrade', () => {
  const proto = (token: string) => `warden.v1, warden.token.${token}`;

  it('upgrades with the right Host, Origin and token', async () => {
    const res = await raw(
      web.port,
      '/ws',
      upgradeHeaders({ Host: host, Origin: origin, 'Sec-WebSocket-Protocol': proto(web.token) }),
    );
    expect(res.upgraded).toBe(true);
    expect(res.status).toBe(101);
    expect(res.headers['sec-websocket-protocol']).toBe('warden.v1');
  });

  it('refuses an upgrade without a token (401)', async () => {
    const res = await raw(
      web.port,
      '/ws',
      upgradeHeaders({ Host: host, Origin: origin, 'Sec-WebSocket-Protocol': 'warden.v1' }),
    );
    expect(res.upgraded).toBe(false);
    expect(res.status).toBe(401);
  });

  it('refuses an upgrade with a wrong token (401)', async () => {
    const wrong = Buffer.alloc(32, 7).toString('base64url');
    for (const token of [wrong, web.token.slice(0, -1), `${web.token}x`, '']) {
      const res = await raw(
        web.port,
        '/ws',
        upgradeHeaders({ Host: host, Origin: origin, 'Sec-WebSocket-Protocol': proto(token) }),
      );
      expect(res.status).toBe(401);
    }
  });

  it('refuses an upgrade from a foreign or missing Origin (403), even with the token', async () => {
    for (const o of ['http://evil.example', `http://localhost:${web.port}`, 'null', undefined]) {
      const res = await raw(
        web.port,
        '/ws',
        upgradeHeaders({ Host: host, Origin: o, 'Sec-WebSocket-Protocol': proto(web.token) }),
      );
      expect(res.upgraded, String(o)).toBe(false);
      expect(res.status, String(o)).toBe(403);
    }
  });

  it('refuses an upgrade with a foreign Host (421), even with the token', async () => {
    const res = await raw(
      web.port,
      '/ws',
      upgradeHeaders({
        Host: `evil.example:${web.port}`,
        Origin: origin,
        'Sec-WebSocket-Protocol': proto(web.token),
      }),
    );
    expect(res.upgraded).toBe(false);
    expect(res.status).toBe(421);
  });

  it("upgrades with a signed-in browser's session secret, from its own Origin only", async () => {
    const code = new URL(web.signIn().fallbackUrl).searchParams.get('code')!;
    const traded = await rawRequest(
      web.port,
      '/session',
      { Host: host, Origin: origin, 'Content-Type': 'application/json' },
      { method: 'POST', body: JSON.stringify({ code }), setHost: false },
    );
    const secret = (JSON.parse(traded.body) as { session: string }).session;
    const withSecret = (o: string | undefined) =>
      raw(
        web.port,
        '/ws',
        upgradeHeaders({ Host: host, Origin: o, 'Sec-WebSocket-Protocol': proto(secret) }),
      );
    const opened = await withSecret(origin);
    expect(opened.upgraded).toBe(true);
    expect(opened.headers['sec-websocket-protocol']).toBe('warden.v1');
    for (const o of ['http://127.0.0.1:1', `http://localhost:${web.port}`, 'null', undefined]) {
      expect((await withSecret(o)).status, String(o)).toBe(403);
    }
  });

  it('refuses an upgrade on another path', async () => {
    const res = await raw(
      web.port,
      '/other',
      upgradeHeaders({ Host: host, Origin: origin, 'Sec-WebSocket-Protocol': proto(web.token) }),
    );
    expect(res.status).toBe(404);
  });
});

describe('contract over the WebSocket', () => {
  function connect(): Promise<WebSocket> {
    const ws = new WebSocket(`ws://${host}/ws`, ['warden.v1', `warden.token.${web.token}`], {
      origin,
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  }
  function next(ws: WebSocket): Promise<unknown> {
    return new Promise((resolve) =>
      ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString('utf8')))),
    );
  }

  it('relays a request to the core and its reply back with the same id', async () => {
    const ws = await connect();
    ws.send(JSON.stringify({ id: 7, op: 'servers.list', input: {} }));
    expect(await next(ws)).toEqual({ id: 7, ok: true, value: { echoed: 'servers.list' } });
    expect(core.calls).toEqual([{ op: 'servers.list', input: {} }]);
    ws.close();
  });

  it('answers an unknown operation with invalid-input without reaching the core', async () => {
    const ws = await connect();
    ws.send(JSON.stringify({ id: 1, op: 'constructor', input: {} }));
    expect(await next(ws)).toMatchObject({ id: 1, ok: false, error: { kind: 'invalid-input' } });
    expect(core.calls).toEqual([]);
    ws.close();
  });

  it('pushes core events to connected clients', async () => {
    const ws = await connect();
    const got = next(ws);
    core.emit('servers.changed', []);
    expect(await got).toEqual({ event: 'servers.changed', payload: [] });
    ws.close();
  });

  it('closes a connection that sends a message over the size limit', async () => {
    const ws = await connect();
    const closed = new Promise<number>((resolve) =>
      ws.once('close', (code: number) => resolve(code)),
    );
    ws.send(JSON.stringify({ id: 1, op: 'servers.list', input: 'x'.repeat(2 * 1024 * 1024) }));
    expect(await closed).toBe(1009);
    expect(core.calls).toEqual([]);
  });

  it('closes a connection that sends malformed messages', async () => {
    const ws = await connect();
    const closed = new Promise<number>((resolve) =>
      ws.once('close', (code: number) => resolve(code)),
    );
    ws.send('{not json');
    expect(await closed).toBe(1007);
  });

  it('drops a client that stops answering pings', async () => {
    await web.close();
    web = await startWebServer({ core, staticDir: dir, heartbeatMs: 50 });
    host = `127.0.0.1:${web.port}`;
    origin = `http://${host}`;
    const ws = new WebSocket(`ws://${host}/ws`, ['warden.v1', `warden.token.${web.token}`], {
      origin,
      autoPong: false,
    });
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    await closed;
  });

  it('keeps a client that answers pings', async () => {
    await web.close();
    web = await startWebServer({ core, staticDir: dir, heartbeatMs: 50 });
    host = `127.0.0.1:${web.port}`;
    origin = `http://${host}`;
    const ws = await connect();
    await new Promise((r) => setTimeout(r, 300));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});
