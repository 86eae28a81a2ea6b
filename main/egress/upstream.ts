/**
 * The broker's side of an allowed connection: connect to the checked address (with a timeout),
 * and relay between it and the client inside the sandbox: one hop, both ways, with backpressure
 * and half-close. Downloads, the usual bulk direction, are read into one reused buffer per
 * connection (no allocation per read); a connection whose reads fill that buffer gets a larger
 * one while the instance's budget of large buffers lasts, which bounds its memory.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';

const SMALL_READ = 64 * 1024;
const LARGE_READ = 1024 * 1024;

/** How many connections of one instance may read into a large buffer at once. */
export class ReadBufferBudget {
  constructor(private left = 8) {}
  take(): boolean {
    if (this.left <= 0) return false;
    this.left--;
    return true;
  }
  give(): void {
    this.left++;
  }
}

interface RelayState {
  sink?: Duplex;
  buffer: Buffer;
}

const relays = new WeakMap<net.Socket, RelayState>();

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
      const state: RelayState = { buffer: Buffer.allocUnsafe(SMALL_READ) };
      let large = false;
      s = net.connect({
        host,
        port,
        allowHalfOpen: true,
        onread: {
          buffer: () => state.buffer,
          callback: (n: number, buf: Uint8Array) => {
            const sink = state.sink!;
            sink.write(Buffer.from(buf.buffer, buf.byteOffset, n));
            if (n === state.buffer.length && !large && budget.take()) {
              large = true;
              state.buffer = Buffer.allocUnsafe(LARGE_READ);
            }
            // A queued write still refers to the buffer: no more reads until it has drained.
            if (sink.writableLength === 0) return true;
            sink.once('drain', () => s.resume());
            return false;
          },
        },
      });
      relays.set(s, state);
      s.once('close', () => {
        if (large) budget.give();
      });
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
 * Joins a client connection and an upstream socket from connectUpstream(…, budget), both ways;
 * `head` is what the client sent before the tunnel was open. A reset on either side ends the other.
 */
export function relay(client: Duplex, upstream: net.Socket, head?: Buffer): void {
  const state = relays.get(upstream);
  if (!state) throw new Error('relay() needs a socket from connectUpstream with a budget');
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => {
    if (!client.readableEnded) upstream.destroy();
  });
  upstream.on('close', () => {
    if (!upstream.readableEnded) client.destroy();
  });
  upstream.on('end', () => client.end());
  if (head && head.length > 0) upstream.write(head);
  client.pipe(upstream);
  state.sink = client;
  upstream.resume();
  client.resume();
}
