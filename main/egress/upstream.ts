/**
 * The broker's side of an allowed connection: connect to the checked address (with a timeout), and
 * relay between it and the client inside the sandbox: one hop, both ways, with backpressure and
 * half-close. Both directions are read into reused buffers (`ReadLoop`): downloads always, uploads
 * where the proxy accepted the client onto a read loop. Absolute-form HTTP requests use the same
 * download path (`relayDown`) behind a filter that rewrites the response head.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type ReadBufferBudget,
  ReadLoop,
  type RelaySink,
  bindReadLoop,
  readLoopOf,
} from './read-loop';
export type { RelaySink } from './read-loop';

export { ReadBufferBudget } from './read-loop';

/**
 * Connects to `host:port` (an address, never a name). With `budget`, the socket is for `relay()`:
 * it reads nothing until joined to its client.
 */
export function connectUpstream(
  host: string,
  port: number,
  timeoutMs: number,
  budget?: ReadBufferBudget,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    let s: net.Socket;
    if (budget) {
      const loop = new ReadLoop(budget);
      s = bindReadLoop(net.connect({ host, port, allowHalfOpen: true, onread: loop.onread }), loop);
    } else {
      s = net.connect({ host, port, allowHalfOpen: true });
    }
    const timer = setTimeout(() => s.destroy(new Error('timed out')), timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      s.setNoDelay(true);
      // A relay socket waits for relay(): nothing is read before the client is joined.
      if (budget) s.pause();
      resolve(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * Sends what `upstream` (from connectUpstream(…, budget)) answers to `client` through `sink`
 * (by default the client itself), and ends the client when the upstream ends. A reset on either
 * side ends the other. What the client sends is the caller's to forward.
 */
export function relayDown(client: Duplex, upstream: net.Socket, sink: RelaySink = client): void {
  const loop = readLoopOf(upstream);
  if (!loop) throw new Error('relay() needs a socket from connectUpstream with a budget');
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => {
    if (!client.readableEnded) upstream.destroy();
  });
  // An answer the sink has ended (its body complete) is let finish: only then is the client let go.
  upstream.on('close', () => {
    if (!upstream.readableEnded && !client.writableEnded) client.destroy();
  });
  upstream.on('end', () => client.end());
  loop.join(sink);
  upstream.resume();
}

/**
 * Joins a client connection and an upstream socket from connectUpstream(…, budget), both ways;
 * `head` is what the client sent before the tunnel was open. A reset on either side ends the other.
 */
export function relay(client: Duplex, upstream: net.Socket, head?: Buffer): void {
  if (head && head.length > 0) upstream.write(head);
  relayDown(client, upstream);
  // A client accepted onto a read loop is read like a download; any other is piped.
  const loop = readLoopOf(client);
  if (loop) {
    loop.join(upstream);
    client.on('end', () => upstream.end());
  } else {
    client.pipe(upstream);
  }
  client.resume();
}
