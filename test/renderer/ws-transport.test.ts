/**
 * The renderer's WebSocket contract client against the real web server (plain Node, `ws` as the
 * socket): replies, errors, events, the credential, and reconnection after the server goes away.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ContractCallError } from '../../app/contract/contract-error';
import type { Reply } from '../../app/contract/reply';
import { type WebServer, startWebServer } from '../../main/web/web-server';
import type { WebCore } from '../../main/web/ws-bridge';
import {
  type ConnectionStatus,
  type SocketLike,
  WsTransport,
} from '../../renderer/src/contract-client/ws-transport';
import {
  codeFromLocation,
  socketUrlFor,
  tokenFromLocation,
} from '../../renderer/src/contract-client/page-token';
import { tempDirEach } from '../helpers/temp-dir';
import { FakeCoreEvents } from '../helpers/web-fakes';

class FakeCore extends FakeCoreEvents implements WebCore {
  hold: Promise<void> | undefined;
  async handle(op: string, input: unknown): Promise<Reply> {
    if (this.hold) await this.hold;
    if (op === 'servers.get') {
      return { ok: false, error: { kind: 'not-found', message: 'no server named "x"' } };
    }
    return { ok: true, value: { op, input } };
  }
}

let dir = '';
let core: FakeCore;
let web: WebServer;
let transport: WsTransport | undefined;

const socketFor = (port: number) => (url: string, protocols: string[]) =>
  new WebSocket(url, protocols, { origin: `http://127.0.0.1:${port}` }) as unknown as SocketLike;

function open(
  token: string | (() => Promise<string | undefined>) = web.token,
  port = web.port,
): WsTransport {
  transport = new WsTransport({
    url: `ws://127.0.0.1:${port}/ws`,
    token,
    createSocket: socketFor(port),
    initialBackoffMs: 20,
    maxBackoffMs: 100,
  });
  return transport;
}

tempDirEach('warden-wst-', (d) => (dir = d));
beforeEach(async () => {
  await writeFile(join(dir, 'index.html'), '');
  core = new FakeCore();
  web = await startWebServer({ core, staticDir: dir });
});

afterEach(async () => {
  transport?.close();
  transport = undefined;
  await web.close();
});

describe('WsTransport', () => {
  it('calls an operation and resolves with the value', async () => {
    const t = open();
    await expect(t.call('servers.list', {})).resolves.toEqual({ op: 'servers.list', input: {} });
    expect(t.status).toEqual({ kind: 'open' });
  });

  it('rejects with the ContractError the core answered', async () => {
    const t = open();
    const failure = await t.call('servers.get', { name: 'x' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ContractCallError);
    expect((failure as ContractCallError).error).toEqual({
      kind: 'not-found',
      message: 'no server named "x"',
    });
  });

  it('delivers valid events and drops payloads that do not match the contract', async () => {
    const t = open();
    await t.call('servers.list', {});
    const got: unknown[] = [];
    t.on('servers.changed', (p) => got.push(p));
    core.emit('servers.changed', { not: 'a list' });
    core.emit('servers.changed', []);
    await expect.poll(() => got).toEqual([[]]);
  });

  it('never opens with a wrong token and keeps retrying with backoff', async () => {
    const t = open('A'.repeat(43));
    const seen: ConnectionStatus[] = [];
    t.onStatus((s) => seen.push(s));
    await expect
      .poll(() => seen.filter((s) => s.kind === 'waiting').length)
      .toBeGreaterThanOrEqual(2);
    expect(seen.some((s) => s.kind === 'open')).toBe(false);
  });

  it('asks a credential function before each connection, and stops when it has none', async () => {
    let asked = 0;
    const answers: (string | undefined)[] = ['A'.repeat(43), web.token];
    const t = open(() => Promise.resolve(answers[asked++]));
    await expect(t.call('servers.list', {})).resolves.toEqual({ op: 'servers.list', input: {} });
    expect(asked).toBe(2);
    await web.close();
    await expect.poll(() => t.status).toEqual({ kind: 'stopped', reason: 'not signed in' });
    expect(asked).toBe(3);
  });

  it('reconnects after the server comes back, and sends calls queued meanwhile', async () => {
    const t = open();
    await t.call('servers.list', {});
    const { port, token } = web;
    await web.close();
    await expect.poll(() => t.status.kind).toBe('waiting');
    const queued = t.call('config.problems', {});
    web = await startWebServer({ core, staticDir: dir, port, token });
    await expect(queued).resolves.toEqual({ op: 'config.problems', input: {} });
    expect(t.status).toEqual({ kind: 'open' });
  });

  it('rejects a call that was sent when the connection drops before the reply', async () => {
    const t = open();
    await t.call('servers.list', {});
    let release!: () => void;
    core.hold = new Promise((r) => (release = r));
    const inFlight = t.call('servers.add', {}).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await web.close();
    const failure = await inFlight;
    release();
    expect(failure).toBeInstanceOf(ContractCallError);
    expect((failure as ContractCallError).error.kind).toBe('internal');
    expect((failure as ContractCallError).error.message).toContain('may or may not');
  });
});

describe('page token', () => {
  const token = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
  it('reads the token or a sign-in code from the fragment only', () => {
    expect(tokenFromLocation({ hash: `#token=${token}` })).toBe(token);
    expect(codeFromLocation({ hash: `#code=${token}` })).toBe(token);
    expect(codeFromLocation({ hash: `#token=${token}` })).toBeUndefined();
    // A query reaches the server's and proxies' logs: it is not read at all.
    const inQuery = { hash: '', search: `?token=${token}` };
    expect(tokenFromLocation(inQuery)).toBeUndefined();
  });
  it('ignores a missing or malformed token', () => {
    expect(tokenFromLocation({ hash: '' })).toBeUndefined();
    expect(tokenFromLocation({ hash: '#token=<script>' })).toBeUndefined();
    expect(codeFromLocation({ hash: '#code=short' })).toBeUndefined();
  });
  it('connects to /ws on the page host', () => {
    expect(socketUrlFor({ protocol: 'http:', host: '127.0.0.1:4312' })).toBe(
      'ws://127.0.0.1:4312/ws',
    );
  });
});
