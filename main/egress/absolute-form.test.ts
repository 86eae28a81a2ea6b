import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answeringUpstream, exchange, recordingUpstream } from '../../test/egress/http-peers';
import { startTestProxy } from '../../test/egress/test-proxy';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An upstream that records what it was sent, closed after the test. */
async function upstream(answer: (request: string) => string | Buffer) {
  const up = await recordingUpstream(answer);
  closers.push(up.close);
  return up;
}

/** Hosts the proxy's dial was asked for in the current test (the broker decides each). */
let dialed: string[] = [];

/** The proxy, refusing what `allow` does not accept; its port. */
async function proxy(allow?: (host: string) => boolean): Promise<number> {
  const p = await startTestProxy(allow);
  dialed = p.dialed;
  closers.push(p.close);
  return p.port;
}

/** The data of a chunked body that must end with its last chunk. */
function dechunk(body: string): string {
  let data = '';
  let rest = body;
  for (;;) {
    const m = /^([0-9a-f]+)\r\n/.exec(rest);
    if (!m) throw new Error(`not chunked: ${JSON.stringify(rest.slice(0, 40))}`);
    const size = parseInt(m[1]!, 16);
    rest = rest.slice(m[0].length);
    if (size === 0) {
      expect(rest).toBe('\r\n');
      return data;
    }
    data += rest.slice(0, size);
    expect(rest.slice(size, size + 2)).toBe('\r\n');
    rest = rest.slice(size + 2);
  }
}

describe('absolute-form http:// through the proxy', () => {
  it('sends an origin-form request without hop-by-hop headers and says the connection closes', async () => {
    const up = await upstream(
      () =>
        'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n' +
        'Proxy-Authenticate: Basic\r\nX-Kept: yes\r\n\r\nhello',
    );
    const port = await proxy();
    const answer = await exchange(
      port,
      `GET http://example.test:${up.port}/path?q=1 HTTP/1.1\r\nHost: example.test:${up.port}\r\n` +
        'Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nTE: trailers\r\nX-Mine: 1\r\n\r\n',
    );
    const sent = up.received();
    expect(sent).toMatch(/^GET \/path\?q=1 HTTP\/1\.1\r\n/);
    expect(sent).toContain('X-Mine: 1\r\n');
    expect(sent).toContain('Connection: close\r\n');
    expect(sent).not.toMatch(/proxy-|^te:/im);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('X-Kept: yes\r\n');
    expect(answer).toContain('Connection: close\r\n');
    expect(answer).not.toMatch(/keep-alive|proxy-authenticate/i);
    expect(answer.endsWith('\r\n\r\nhello')).toBe(true);
  });

  it('passes a chunked upload chunked, and a large answer byte for byte', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 17, 'z');
    const up = await upstream((req) =>
      req.endsWith('0\r\n\r\n')
        ? Buffer.concat([
            Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`),
            body,
          ])
        : '',
    );
    const port = await proxy();
    const answer = await exchange(
      port,
      `POST http://example.test:${up.port}/up HTTP/1.1\r\nHost: example.test:${up.port}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        '5\r\nabcde\r\n3\r\nfgh\r\n0\r\n\r\n',
    );
    const sent = up.received();
    const payload = sent.slice(sent.indexOf('\r\n\r\n') + 4);
    expect(dechunk(payload)).toBe('abcdefgh');
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(body.toString('latin1'));
  });

  it('refuses an answer that is not HTTP with a 502, and answers no request pipelined behind', async () => {
    const up = await upstream(() => 'SSH-2.0-OpenSSH\r\n\r\n');
    const port = await proxy();
    const answer = await exchange(
      port,
      `GET http://example.test:${up.port}/ HTTP/1.1\r\nHost: example.test:${up.port}\r\n\r\n` +
        `GET http://example.test:${up.port}/second HTTP/1.1\r\nHost: example.test:${up.port}\r\n\r\n`,
    );
    expect(answer).toMatch(
      /^HTTP\/1\.1 502 Bad Gateway\r\nX-Warden-Reason: warden: upstream: not an HTTP\/1\.x response\r\n/,
    );
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(up.received()).not.toContain('/second');
  });
});

/** An upstream that answers every request head and never closes first, closed after the test. */
async function keepOpenUpstream(answer: string) {
  const up = await answeringUpstream(answer);
  closers.push(up.close);
  return up;
}

describe('several requests on one client connection', () => {
  it('a request pipelined behind a relayed one is refused by closing after the first answer, even when the upstream keeps its connection open', async () => {
    const up = await keepOpenUpstream('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst');
    const port = await proxy();
    const answer = await exchange(
      port,
      `GET http://example.test:${up.port}/a HTTP/1.1\r\nHost: example.test:${up.port}\r\n\r\n` +
        `GET http://other.test:${up.port}/b HTTP/1.1\r\nHost: other.test:${up.port}\r\n\r\n`,
    );
    // One complete answer that says the connection closes (RFC 9112 §9.6: no request after it
    // is processed), then the close itself: the client knows to send the second one again.
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('Connection: close\r\n');
    expect(answer.endsWith('\r\n\r\nfirst')).toBe(true);
    expect(up.requests()).toBe(1);
    expect(dialed).toEqual(['example.test']);
  });

  it('a chunked answer ends the connection at its last chunk, not at the upstream close', async () => {
    const body = '4\r\nwiki\r\n5;x=1\r\npedia\r\n0\r\nX-T: 1\r\n\r\n';
    const up = await keepOpenUpstream(
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    );
    const port = await proxy();
    const answer = await exchange(
      port,
      `GET http://a.test:${up.port}/ HTTP/1.1\r\nHost: a.test:${up.port}\r\n\r\n`,
    );
    expect(answer.endsWith(`\r\n\r\n${body}`)).toBe(true);
  });

  it('each request on a kept-alive connection is decided: a second one to a refused host gets 403', async () => {
    const up = await keepOpenUpstream('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    const port = await proxy((host) => host === 'allowed.test');
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    const ask = (host: string, path: string) =>
      `GET http://${host}:${up.port}${path} HTTP/1.0\r\nHost: ${host}:${up.port}\r\nConnection: keep-alive\r\n\r\n`;
    s.write(ask('allowed.test', '/one'));
    await vi.waitFor(() => expect(out).toContain('\r\n\r\nok'));
    expect(out).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(out).toMatch(/connection: keep-alive/i);
    // The same connection, a host the policy refuses; then one pipelined pair, refused first.
    s.write(ask('denied.test', '/two'));
    await vi.waitFor(() => expect(out).toContain('denied.test is not allowed'));
    expect(out.match(/HTTP\/1\.1 [0-9]{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 403 ']);
    await closed;
    expect(dialed).toEqual(['allowed.test', 'denied.test']);
    expect(up.requests()).toBe(1);
  });

  it('pipelined keep-alive requests are each decided and answered in order', async () => {
    const up = await keepOpenUpstream('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    const port = await proxy((host) => host !== 'denied.test');
    const ask = (host: string, close = false) =>
      `GET http://${host}:${up.port}/ HTTP/1.0\r\nHost: ${host}:${up.port}\r\nConnection: ${close ? 'close' : 'keep-alive'}\r\n\r\n`;
    const answer = await exchange(
      port,
      ask('one.test') + ask('denied.test') + ask('three.test', true),
    );
    // Each is decided as it is read (the third too), and answered in order until the refusal,
    // which closes the connection: the client is told the third was not taken.
    expect(dialed).toEqual(['one.test', 'denied.test', 'three.test']);
    expect(answer.match(/HTTP\/1\.1 [0-9]{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 403']);
    expect(answer).toMatch(
      /Connection: close\r\n[^]*\r\n\r\nwarden: denied\.test is not allowed\n$/,
    );
  });
});
