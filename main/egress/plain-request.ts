/**
 * The fast path for a plain absolute-form `http://` HTTP/1.1 request whose body, if any, is framed
 * by Content-Length: the head as the proxy read it (`request-head.ts`) is sent upstream in origin
 * form, then exactly that many body bytes are relayed as bytes through the client's reused read
 * buffers, like a CONNECT upload. Nothing after the body is passed on: a request pipelined behind
 * is never sent, and the answer's `Connection: close` tells the client to ask again.
 */
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { relayAnswer, upstreamHead } from './absolute-form';
import { readLoopOf } from './read-loop';
import type { RequestHead } from './request-head';
import type { RelaySink } from './upstream';

/** Passes the first `left` bytes written to `upstream`, and drops the rest. */
class CountedBody implements RelaySink {
  constructor(
    private left: number,
    private readonly upstream: net.Socket,
  ) {}

  get complete(): boolean {
    return this.left === 0;
  }

  write(chunk: Buffer, done: () => void): unknown {
    if (this.left === 0 || chunk.length === 0) return void done();
    const part = chunk.length <= this.left ? chunk : chunk.subarray(0, this.left);
    this.left -= part.length;
    return this.upstream.write(part, done);
  }
}

/** Whether `head` takes the fast path (the rest go to Node's HTTP server). */
export const isPlainRequest = (head: RequestHead): boolean =>
  head.url?.protocol === 'http:' && head.version === '1.1' && !head.chunked;

/**
 * Sends the request of `head` to `upstream` (a relay socket from the broker), then its body:
 * `early` (bytes read with the head), then what the client sends, counted; and relays the answer.
 */
export function relayPlainRequest(
  head: RequestHead,
  client: net.Socket,
  upstream: net.Socket,
  early: Buffer,
): void {
  const url = head.url!;
  if (head.expectContinue) client.write('HTTP/1.1 100 Continue\r\n\r\n');
  upstream.write(upstreamHead(head.method, `${url.pathname}${url.search}`, head.headers, url.host));
  const body = new CountedBody(head.length, upstream);
  body.write(early, () => undefined);
  // A client that stops sending before its body is complete abandons the request (it may have
  // ended already, while its head was read or its destination decided).
  const abandon = () => {
    if (body.complete) return false;
    client.destroy();
    upstream.destroy();
    return true;
  };
  if (!client.readableEnded) client.on('end', abandon);
  else if (abandon()) return;
  relayAnswer(client, upstream, head.method);
  joinBody(client, upstream, body);
}

/** Reads the client into `sink`: through its read loop where it has one, else as a stream. */
function joinBody(client: Duplex, upstream: net.Socket, sink: RelaySink): void {
  const loop = readLoopOf(client);
  if (loop) loop.join(sink);
  else {
    client.on('data', (data: Buffer) => {
      if (sink.write(data, () => undefined) === false) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    });
  }
  client.resume();
}
