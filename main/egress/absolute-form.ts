/**
 * Absolute-form `http://` requests through the egress proxy, relayed like a CONNECT tunnel: the
 * request (its head as the proxy read it, `plain-request.ts`, or a chunked one as Node's HTTP
 * server parsed it) is written to the upstream with the URL's Host and `Connection: close`, and
 * the answer comes back through the tunnel's reused read buffers (`relayDown`), with only its
 * head rewritten: hop-by-hop headers dropped and `Connection: close` said to the client, since
 * this connection ends with the answer. The body bytes pass unchanged, framed as the upstream
 * framed them; where that framing says the body ends, the client's connection ends too, whether
 * or not the upstream closes its own. A request pipelined behind is not taken: the `close` tells
 * the client so (RFC 9112 §9.6), and it asks again.
 */
import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { bodyEnd, type BodyEnd } from './body-end';
import { type RelaySink, relayDown } from './upstream';

/** Headers that concern one hop only, never passed on (plus `expect`: answered here). */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** Request body bytes queued for the upstream before the client is read no further. */
const QUEUED_BODY = 1024 * 1024;

/** Largest response head taken from an upstream before it is refused. */
const MAX_HEAD = 64 * 1024;

/** `raw` (name, value, name, value…) without the hop-by-hop headers. */
export function cleanHeaders(
  raw: readonly string[],
  drop: ReadonlySet<string> = HOP_BY_HOP,
): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!drop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

const headLines = (pairs: readonly string[]) => {
  let text = '';
  for (let i = 0; i + 1 < pairs.length; i += 2) text += `${pairs[i]}: ${pairs[i + 1]}\r\n`;
  return text;
};

/** Dropped from requests: hop-by-hop headers, `expect` (answered here) and `host` (rewritten). */
const REQUEST_DROP = new Set([...HOP_BY_HOP, 'expect', 'host']);

/**
 * The request headers (name, value…) sent upstream: without `drop`, and with `Host` naming the
 * URL's authority `host`, whatever the client's said: the host the upstream reads is the one the
 * broker decided on (RFC 9112 §3.2.2: a proxy generates Host from the absolute target).
 */
export function upstreamHeaders(
  raw: readonly string[],
  host: string,
  drop: ReadonlySet<string> = REQUEST_DROP,
): string[] {
  return ['Host', host, ...cleanHeaders(raw, drop)];
}

const STATUS_LINE = /^HTTP\/1\.[01] ([1-9][0-9]{2})(?: ([\t\x20-\x7e\x80-\xff]*))?$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[\t ]*([\t\x20-\x7e\x80-\xff]*?)[\t ]*$/;

/**
 * Rewrites the response heads at the start of what the upstream sends (1xx heads, then the
 * final one), then passes the rest to the client unchanged. An unreadable head ends both sides.
 */
class ResponseHeads implements RelaySink {
  private pending = Buffer.alloc(0);
  private state: 'head' | 'body' | 'over' = 'head';
  private end: BodyEnd | undefined;

  constructor(
    private readonly client: Duplex,
    private readonly upstream: net.Socket,
    private readonly method: string,
  ) {}

  write(chunk: Buffer, done: () => void): unknown {
    if (this.state === 'body') return this.body(chunk, done);
    if (this.state === 'over') return void done();
    // Copied: the read buffer is reused as soon as `done` runs.
    let buffered = Buffer.concat([this.pending, chunk]);
    done();
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_HEAD) return this.refuse('a response head over 64 KiB');
        this.pending = buffered;
        return true;
      }
      const lines = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const status = STATUS_LINE.exec(lines[0]!);
      if (!status) return this.refuse('not an HTTP/1.x response');
      const pairs: string[] = [];
      for (const line of lines.slice(1)) {
        const m = HEADER_LINE.exec(line);
        if (!m) return this.refuse('a malformed response header');
        pairs.push(m[1]!, m[2]!);
      }
      const code = Number(status[1]);
      const interim = code < 200 && code !== 101;
      const head =
        `HTTP/1.1 ${code} ${status[2] ?? ''}\r\n${headLines(cleanHeaders(pairs))}` +
        `${interim ? '' : 'Connection: close\r\n'}\r\n`;
      this.client.write(Buffer.from(head, 'latin1'));
      buffered = buffered.subarray(end + 4);
      if (!interim) {
        this.state = 'body';
        this.pending = Buffer.alloc(0);
        this.end = bodyEnd(this.method, code, pairs);
        return this.body(buffered, () => undefined);
      }
    }
  }

  /** Passes body bytes on; where the body ends, the client's connection ends, then the upstream's. */
  private body(chunk: Buffer, done: () => void): unknown {
    const at = this.end!.feed(chunk);
    if (at < 0) return chunk.length > 0 ? this.client.write(chunk, done) : void done();
    this.state = 'over';
    this.client.end(chunk.subarray(0, at), done);
    this.upstream.destroy();
    return false;
  }

  private refuse(why: string): boolean {
    this.state = 'over';
    const reason = `warden: upstream: ${why}`;
    this.client.end(
      `HTTP/1.1 502 Bad Gateway\r\nX-Warden-Reason: ${reason}\r\nContent-Type: text/plain\r\n` +
        `Content-Length: ${reason.length + 1}\r\nConnection: close\r\n\r\n${reason}\n`,
      () => this.upstream.destroy(),
    );
    return false;
  }
}

/**
 * The origin-form request head sent upstream for `path` on `host` (the URL's authority): the
 * client's `headers` (name, value…) as `upstreamHeaders` keeps them, and `Connection: close`.
 */
export function upstreamHead(
  method: string,
  path: string,
  headers: readonly string[],
  host: string,
): string {
  const kept = upstreamHeaders(headers, host);
  return `${method} ${path} HTTP/1.1\r\n${headLines(kept)}Connection: close\r\n\r\n`;
}

/**
 * Relays what `upstream` (a relay socket from the broker) answers a `method` request to the
 * client: heads rewritten, the body as bytes, the client's connection ended where the body ends.
 */
export function relayAnswer(client: Duplex, upstream: net.Socket, method: string): void {
  // The answer is complete when the upstream ends: the connection is done with (and audited).
  upstream.once('end', () => upstream.destroy());
  relayDown(client, upstream, new ResponseHeads(client, upstream, method));
}

/**
 * Sends `req` (as Node's HTTP server parsed it: a chunked upload) to `upstream` as an
 * origin-form request for `path` and relays the answer to the client's socket. Only for
 * HTTP/1.1 clients over plain `http://`: the answer keeps the upstream's framing, which an
 * HTTP/1.0 client may not read.
 */
export function relayAbsoluteForm(
  req: http.IncomingMessage,
  client: Duplex,
  upstream: net.Socket,
  path: string,
  host: string,
): void {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const method = req.method ?? 'GET';
  upstream.write(upstreamHead(method, path, req.rawHeaders, host));
  // The body as Node's parser gave it: a chunked one is chunked again (its trailers dropped).
  // Reading pauses only once a good deal is queued: each pause and resume of the client costs a
  // stop and a start of its reads, and the upstream's own mark (16 KiB) is below one read.
  req.on('data', (data: Buffer) => {
    if (chunked) {
      upstream.write(`${data.length.toString(16)}\r\n`);
      upstream.write(data);
    }
    if (!upstream.write(chunked ? '\r\n' : data) && upstream.writableLength >= QUEUED_BODY) {
      req.pause();
      upstream.once('drain', () => req.resume());
    }
  });
  req.once('end', () => {
    if (chunked) upstream.write('0\r\n\r\n');
  });
  relayAnswer(client, upstream, method);
  req.resume();
}
