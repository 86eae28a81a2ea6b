/**
 * The broker's side of an allowed connection: connect to the checked address (with a timeout),
 * and relay between it and the client inside the sandbox: one hop, both ways, with backpressure
 * and half-close. Downloads, the usual bulk direction, are read into two reused buffers per
 * connection (no allocation per read); a connection whose reads fill them gets larger ones while
 * the instance's budget of large buffers lasts, which bounds its memory. Uploads are piped.
 * Absolute-form HTTP requests use the same download path (`relayDown`) behind a filter that
 * rewrites the response head.
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

/** Where a relay writes what the upstream sent; `done` once the chunk's buffer may be reused. */
export interface RelaySink {
  write(chunk: Buffer, done: () => void): unknown;
}

interface RelayState {
  sink?: RelaySink;
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
      // Two buffers: one fills while the other may still be queued for the client. A write the
      // kernel has not taken yet refers to its buffer, so reading waits while both are in use.
      const state: RelayState = { buffer: Buffer.allocUnsafe(SMALL_READ) };
      let spare: Buffer[] = [Buffer.allocUnsafe(SMALL_READ)];
      let waiting = false;
      let large = false;
      // Node reads next into the buffer it took right after the last callback: when reading
      // stopped for want of a free buffer, that is the one just written, so it must drain first.
      const release = (b: Buffer): void => {
        if (b.length !== state.buffer.length) return;
        if (!waiting || b !== state.buffer) return void spare.push(b);
        waiting = false;
        s.resume();
      };
      s = net.connect({
        host,
        port,
        allowHalfOpen: true,
        onread: {
          buffer: () => state.buffer,
          callback: (n: number) => {
            const used = state.buffer;
            state.sink!.write(used.subarray(0, n), () => release(used));
            if (n === used.length && !large && budget.take()) {
              large = true;
              state.buffer = Buffer.allocUnsafe(LARGE_READ);
              spare = [Buffer.allocUnsafe(LARGE_READ)];
              return true;
            }
            const next = spare.pop();
            if (next) {
              state.buffer = next;
              return true;
            }
            waiting = true;
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
 * Sends what `upstream` (from connectUpstream(…, budget)) answers to `client` through `sink`
 * (by default the client itself), and ends the client when the upstream ends. A reset on either
 * side ends the other. What the client sends is the caller's to forward.
 */
export function relayDown(client: Duplex, upstream: net.Socket, sink: RelaySink = client): void {
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
  state.sink = sink;
  upstream.resume();
}

/**
 * Joins a client connection and an upstream socket from connectUpstream(…, budget), both ways;
 * `head` is what the client sent before the tunnel was open. A reset on either side ends the other.
 */
export function relay(client: Duplex, upstream: net.Socket, head?: Buffer): void {
  if (head && head.length > 0) upstream.write(head);
  relayDown(client, upstream);
  client.pipe(upstream);
  client.resume();
}
