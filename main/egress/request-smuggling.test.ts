import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answeringUpstream, exchange, recordingUpstream } from '../../test/egress/http-peers';
import { startTestProxy } from '../../test/egress/test-proxy';
import type { ProxyOptions } from './proxy-server';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

async function upstream(answer: (request: string) => string | Buffer = () => OK) {
  const up = await recordingUpstream(answer);
  closers.push(up.close);
  return up;
}

async function proxy(allow?: (host: string) => boolean, options?: ProxyOptions) {
  const p = await startTestProxy(allow, options);
  closers.push(p.close);
  return p;
}

/** Hostile or ambiguous heads, each with the status it is refused with (`U` = host:port). */
const HOSTILE: [string, string, number][] = [
  [
    'CL.TE',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG',
    400,
  ],
  [
    'TE.CL',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: a second Transfer-Encoding',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: xchunked',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: a coding list',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: identity',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding: identity\r\n\r\n',
    400,
  ],
  [
    'TE.TE: a vertical tab before the value',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding:\x0bchunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: space before the colon',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'TE.TE: folded onto the next line',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'Transfer-Encoding in HTTP/1.0',
    'POST http://U/ HTTP/1.0\r\nHost: U\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'a repeated Content-Length (same value)',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi',
    400,
  ],
  [
    'a repeated Content-Length (other value)',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\nhi',
    400,
  ],
  [
    'a Content-Length list',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: 2, 2\r\n\r\nhi',
    400,
  ],
  [
    'a signed Content-Length',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: +2\r\n\r\nhi',
    400,
  ],
  [
    'a hex Content-Length',
    'POST http://U/ HTTP/1.1\r\nHost: U\r\nContent-Length: 0x2\r\n\r\nhi',
    400,
  ],
  ['an obs-fold line', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: 1\r\n\t2\r\n\r\n', 400],
  ['a bare LF ending a header', 'GET http://U/ HTTP/1.1\r\nHost: U\nX-A: 1\r\n\r\n', 400],
  ['bare LF line ends throughout', 'GET http://U/ HTTP/1.1\nHost: U\n\n', 400],
  ['a bare CR inside a value', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: 1\rX-B: 2\r\n\r\n', 400],
  ['whitespace before a colon', 'GET http://U/ HTTP/1.1\r\nHost : U\r\n\r\n', 400],
  ['a header name with a space', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX A: 1\r\n\r\n', 400],
  ['a header name with a separator', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX(A): 1\r\n\r\n', 400],
  ['a NUL in a value', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: a\x00b\r\n\r\n', 400],
  ['a DEL in a value', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: a\x7fb\r\n\r\n', 400],
  ['a line without a colon', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nnot a header\r\n\r\n', 400],
  ['two Host headers', 'GET http://U/ HTTP/1.1\r\nHost: U\r\nHost: evil.test\r\n\r\n', 400],
  ['no Host in HTTP/1.1', 'GET http://U/ HTTP/1.1\r\nX-A: 1\r\n\r\n', 400],
  ['a malformed Host', 'GET http://U/ HTTP/1.1\r\nHost: U/x\r\n\r\n', 400],
  ['userinfo in the URL', 'GET http://user:pw@U/ HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['a backslash in the URL', 'GET http://U\\@evil.test/ HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['a percent-encoded host', 'GET http://u%2etest:1/ HTTP/1.1\r\nHost: u%2etest:1\r\n\r\n', 400],
  ['a fragment in the target', 'GET http://U/#x HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['origin form', 'GET / HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['asterisk form', 'OPTIONS * HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['another scheme', 'GET ftp://U/ HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['HTTP/0.9', 'GET http://U/\r\n\r\n', 400],
  ['HTTP/2.0 in the request line', 'GET http://U/ HTTP/2.0\r\nHost: U\r\n\r\n', 400],
  ['two spaces in the request line', 'GET  http://U/ HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['an empty line before the request', '\r\nGET http://U/ HTTP/1.1\r\nHost: U\r\n\r\n', 400],
  ['a CONNECT with a body', 'CONNECT U HTTP/1.1\r\nHost: U\r\nContent-Length: 5\r\n\r\nhello', 400],
  [
    'an expectation other than 100-continue',
    'GET http://U/ HTTP/1.1\r\nHost: U\r\nExpect: 200-ok\r\n\r\n',
    417,
  ],
  [
    'a head over 64 KiB',
    `GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: ${'a'.repeat(70 * 1024)}\r\n\r\n`,
    431,
  ],
  [
    'a head over 64 KiB, still unfinished',
    `GET http://U/ HTTP/1.1\r\nHost: U\r\nX-A: ${'a'.repeat(70 * 1024)}`,
    431,
  ],
];

describe('the proxy reads request heads strictly', () => {
  it.each(HOSTILE)(
    'refuses %s, closes the connection, and sends nothing upstream',
    async (_, head, status) => {
      const up = await upstream();
      const p = await proxy();
      const answer = await exchange(p.port, head.replaceAll('U', `u.test:${up.port}`));
      expect(answer).toMatch(
        new RegExp(`^HTTP/1\\.1 ${status} [^\\r]+\\r\\nX-Warden-Reason: warden: `),
      );
      expect(answer).toContain('Connection: close\r\n');
      expect(answer.match(/(?:^|\r\n)HTTP\/1\.1 [0-9]{3} /g)).toHaveLength(1);
      expect(p.dialed).toEqual([]);
      expect(up.received()).toBe('');
    },
  );

  it('passes a Content-Length body exactly: a request smuggled behind it never reaches the upstream', async () => {
    const up = await upstream((req) => (req.endsWith('hello') ? OK : ''));
    const p = await proxy();
    const U = `u.test:${up.port}`;
    const answer = await exchange(
      p.port,
      `POST http://${U}/in HTTP/1.1\r\nHost: ${U}\r\nContent-Length: 5\r\n\r\nhello` +
        `GET http://${U}/admin HTTP/1.1\r\nHost: ${U}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Connection: close\r\n\r\nok$/);
    expect(up.received()).toBe(
      `POST /in HTTP/1.1\r\nHost: ${U}\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`,
    );
    expect(p.dialed).toEqual(['u.test']);
  });

  it('a chunked body is passed re-chunked: a request after its last chunk never reaches the upstream', async () => {
    const up = await upstream((req) => (req.endsWith('0\r\n\r\n') ? OK : ''));
    const p = await proxy();
    const U = `u.test:${up.port}`;
    await exchange(
      p.port,
      `POST http://${U}/in HTTP/1.1\r\nHost: ${U}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `3\r\nabc\r\n0\r\n\r\nGET http://${U}/admin HTTP/1.1\r\nHost: ${U}\r\n\r\n`,
    );
    expect(up.received()).toMatch(/^POST \/in HTTP\/1\.1\r\n[^]*\r\n\r\n3\r\nabc\r\n0\r\n\r\n$/);
    expect(p.dialed).toEqual(['u.test']);
  });

  it('answers 100 Continue itself and does not pass the expectation on', async () => {
    const up = await upstream((req) => (req.endsWith('body') ? OK : ''));
    const p = await proxy();
    const U = `u.test:${up.port}`;
    const s = net.connect(p.port, '127.0.0.1');
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    const closed = new Promise((r) => s.on('close', r));
    s.write(
      `PUT http://${U}/ HTTP/1.1\r\nHost: ${U}\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n`,
    );
    await vi.waitFor(() => expect(out).toBe('HTTP/1.1 100 Continue\r\n\r\n'));
    s.write('body');
    await closed;
    expect(out).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(up.received()).not.toMatch(/expect/i);
  });

  it('answers 408 to a head that trickles in too slowly (slow loris), without dialing', async () => {
    const up = await upstream();
    const p = await proxy(undefined, { headTimeoutMs: 300 });
    const s = net.connect(p.port, '127.0.0.1');
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('error', () => undefined);
    const closed = new Promise((r) => s.on('close', r));
    s.write(`GET http://u.test:${up.port}/ HTTP/1.1\r\nHost: u.test:${up.port}\r\nX-A: `);
    const drip = setInterval(() => s.writable && s.write('a'), 20);
    await closed;
    clearInterval(drip);
    expect(out).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(p.dialed).toEqual([]);
    expect(up.received()).toBe('');
  });
});

describe('the Host header', () => {
  /** A first request and, on a kept-alive HTTP/1.0 connection, a second one read by Node. */
  const ask = (target: string, headers: string) =>
    `GET ${target} HTTP/1.0\r\n${headers}\r\nConnection: keep-alive\r\n\r\n`;

  it.each([
    ['two Host headers', 'Host: U\r\nHost: evil.test'],
    ['a malformed Host', 'Host: U@evil.test'],
    ['userinfo in the URL', 'Host: U', 'http://me@U/'],
  ])(
    'on a later kept-alive request is held to the same rules: %s is refused',
    async (_, host, url = 'http://U/') => {
      const up = await answeringUpstream(OK);
      closers.push(up.close);
      const p = await proxy();
      const U = `u.test:${up.port}`;
      const answer = await exchange(
        p.port,
        (ask('http://U/', 'Host: U') + ask(url, host)).replaceAll('U', U),
      );
      expect(answer.match(/HTTP\/1\.1 [0-9]{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 400 ']);
      expect(p.dialed).toEqual(['u.test']);
      expect(up.requests()).toBe(1);
    },
  );

  it('the upstream always reads the URL host, whatever Host the client sent, on every path', async () => {
    const up = await answeringUpstream(OK);
    closers.push(up.close);
    const p = await proxy();
    const U = `u.test:${up.port}`;
    // The fast path; a chunked body (Node's parser); HTTP/1.0 kept alive, twice (Node's client).
    await exchange(p.port, `GET http://${U}/a HTTP/1.1\r\nHost: evil.test\r\n\r\n`);
    await exchange(
      p.port,
      `POST http://${U}/b HTTP/1.1\r\nHost: evil.test\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    );
    await exchange(
      p.port,
      ask(`http://${U}/c`, 'Host: 127.0.0.1:8877') +
        ask(`http://${U}/d`, 'X-A: 1').replace('keep-alive', 'close'),
    );
    expect(up.received().match(/^(?:GET|POST) \/[a-d] /gm)).toHaveLength(4);
    const hosts = up.received().match(/^host: .*$/gim);
    expect(hosts).toEqual(Array(4).fill(`Host: ${U}`));
    expect(up.received()).not.toContain('evil.test');
  });
});

describe('a plain http:// request on the fast path', () => {
  it('a second request on the same connection, to a refused host, is never dialed: the connection closes after the first answer', async () => {
    const up = await upstream();
    const p = await proxy((host) => host === 'allowed.test');
    const s = net.connect(p.port, '127.0.0.1');
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('error', () => undefined);
    const closed = new Promise((r) => s.on('close', r));
    const ask = (host: string) =>
      `GET http://${host}:${up.port}/ HTTP/1.1\r\nHost: ${host}:${up.port}\r\nConnection: keep-alive\r\n\r\n`;
    s.write(ask('allowed.test'));
    await vi.waitFor(() => expect(out).toContain('\r\n\r\nok'));
    if (s.writable) s.write(ask('denied.test'));
    await closed;
    expect(out).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*Connection: close\r\n\r\nok$/);
    expect(p.dialed).toEqual(['allowed.test']);
    expect(up.received().match(/^GET /gm)).toHaveLength(1);
  });

  it('a request to a refused host is answered 403 and its body goes nowhere', async () => {
    const up = await upstream();
    const p = await proxy(() => false);
    const U = `u.test:${up.port}`;
    const answer = await exchange(
      p.port,
      `POST http://${U}/ HTTP/1.1\r\nHost: ${U}\r\nContent-Length: 4\r\n\r\nbody`,
    );
    expect(answer).toMatch(
      /^HTTP\/1\.1 403 Forbidden\r\nX-Warden-Reason: warden: u\.test is not allowed\r\n/,
    );
    expect(p.dialed).toEqual(['u.test']);
    expect(up.received()).toBe('');
  });

  it('a client that ends before its body is complete abandons the request: the upstream connection is closed', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    let received = '';
    const server = net.createServer((c) => {
      c.on('data', (d: Buffer) => (received += d.toString('latin1')));
      c.on('close', upstreamClosed);
      c.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const U = `u.test:${(server.address() as net.AddressInfo).port}`;
    const p = await proxy();
    const s = net.connect(p.port, '127.0.0.1', () =>
      s.end(`POST http://${U}/ HTTP/1.1\r\nHost: ${U}\r\nContent-Length: 100\r\n\r\nonly part`),
    );
    s.on('error', () => undefined);
    await closed;
    expect(received.endsWith('\r\n\r\nonly part')).toBe(true);
  });

  it('relays a large POST body byte for byte, and not a byte more', async () => {
    const body = randomBytes(24 * 1024 * 1024 + 5);
    // The upstream hashes what follows the head, and answers the hash once it has the body.
    let head = '';
    let bodyBytes = 0;
    let received = '';
    const server = net.createServer((c) => {
      const hash = createHash('sha256');
      let inHead = true;
      c.on('data', (d: Buffer) => {
        let data = d;
        if (inHead) {
          head += d.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          inHead = false;
          data = d.subarray(d.length - (head.length - end - 4));
          head = head.slice(0, end + 4);
        }
        bodyBytes += data.length;
        hash.update(data);
        if (bodyBytes >= body.length) received += data.toString('latin1');
        if (bodyBytes === body.length) {
          const digest = hash.digest('hex');
          c.end(`HTTP/1.1 200 OK\r\nContent-Length: ${digest.length}\r\n\r\n${digest}`);
        }
      });
      c.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const port = (server.address() as net.AddressInfo).port;
    const p = await proxy();
    const U = `u.test:${port}`;
    const request = `POST http://${U}/up HTTP/1.1\r\nHost: ${U}\r\nContent-Length: ${body.length}\r\n\r\n`;
    // The head and the first body bytes in one write, the rest in odd pieces, then a request
    // pipelined behind.
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(p.port, '127.0.0.1', () => {
        s.write(Buffer.concat([Buffer.from(request), body.subarray(0, 777)]));
        for (let at = 777; at < body.length; at += 1_000_003)
          s.write(body.subarray(at, Math.min(body.length, at + 1_000_003)));
        s.write(`GET http://${U}/after HTTP/1.1\r\nHost: ${U}\r\n\r\n`);
      });
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString('latin1')));
      s.on('close', () => resolve(out));
      s.on('error', reject);
    });
    expect(answer.endsWith(`\r\n\r\n${createHash('sha256').update(body).digest('hex')}`)).toBe(
      true,
    );
    expect(head).toBe(
      `POST /up HTTP/1.1\r\nHost: ${U}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    expect(bodyBytes).toBe(body.length);
    expect(received).not.toContain('/after');
  });
});
