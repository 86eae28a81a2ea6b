/**
 * Reused read buffers for the broker's bulk paths, both directions. Node reads a socket 64 KiB
 * at a time into a fresh buffer; a `ReadLoop` reads into two reused buffers instead, and a
 * connection whose reads fill them gets 1 MiB ones while the budget of large buffers lasts
 * (which bounds memory). Until a sink is joined, what is read is pushed to the socket's own
 * stream as a copy, so a protocol can be spoken on it first (the proxy's HTTP and SOCKS5).
 */
import net from 'node:net';

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

/** Where a relay writes what was read; `done` once the chunk's buffer may be reused. */
export interface RelaySink {
  write(chunk: Buffer, done: () => void): unknown;
}

/**
 * The read side of one socket. Two buffers: one fills while the other may still be queued for
 * the sink. A write the kernel has not taken yet refers to its buffer, so reading waits while
 * both are in use.
 */
export class ReadLoop {
  private buffer: Buffer = Buffer.allocUnsafe(SMALL_READ);
  private spare: Buffer[] = [Buffer.allocUnsafe(SMALL_READ)];
  private waiting = false;
  private large = false;
  private sink: RelaySink | undefined;
  private socket: net.Socket | undefined;

  constructor(private readonly budget: ReadBufferBudget) {}

  /** The `onread` option for the socket this loop reads. */
  readonly onread = {
    buffer: (): Buffer => this.buffer,
    callback: (n: number): boolean => this.read(n),
  };

  /** Binds the loop to its socket (once created with `onread`). */
  bind(socket: net.Socket): void {
    this.socket = socket;
    socket.once('close', () => {
      if (this.large) this.budget.give();
    });
  }

  /** From now on reads go to `sink`; what the stream still holds goes first. */
  join(sink: RelaySink): void {
    const socket = this.socket!;
    this.sink = sink;
    for (let chunk: unknown; (chunk = socket.read()) !== null;) {
      if (Buffer.isBuffer(chunk)) sink.write(chunk, () => undefined);
    }
  }

  private read(n: number): boolean {
    const used = this.buffer;
    // No sink yet: a copy, since the buffer is read into again.
    if (!this.sink) return this.socket!.push(Buffer.from(used.subarray(0, n)));
    this.sink.write(used.subarray(0, n), () => this.release(used));
    if (n === used.length && !this.large && this.budget.take()) {
      this.large = true;
      this.buffer = Buffer.allocUnsafe(LARGE_READ);
      this.spare = [Buffer.allocUnsafe(LARGE_READ)];
      return true;
    }
    const next = this.spare.pop();
    if (next) {
      this.buffer = next;
      return true;
    }
    this.waiting = true;
    return false;
  }

  // Node reads next into the buffer it took right after the last callback: when reading stopped
  // for want of a free buffer, that is the one just written, so it must drain first.
  private release(b: Buffer): void {
    if (b.length !== this.buffer.length) return;
    if (!this.waiting || b !== this.buffer) return void this.spare.push(b);
    this.waiting = false;
    this.socket!.resume();
  }
}

const loops = new WeakMap<net.Socket, ReadLoop>();

/** The loop reading `socket`, if it was made with one. */
export const readLoopOf = (socket: object): ReadLoop | undefined => loops.get(socket as net.Socket);

/** Remembers `loop` as the reader of `socket`. */
export function bindReadLoop(socket: net.Socket, loop: ReadLoop): net.Socket {
  loop.bind(socket);
  loops.set(socket, loop);
  return socket;
}

/**
 * A socket accepted by a `net.Server` (created with `pauseOnConnect`) moved onto a `ReadLoop`.
 * Node offers `onread` only where it creates the socket, so the accepted socket's handle is
 * taken over by a new one (the handle is Node's private field; without it the socket is kept).
 */
export function withReadLoop(accepted: net.Socket, budget: ReadBufferBudget): net.Socket {
  const holder = accepted as unknown as { _handle?: object | null };
  const handle = holder._handle;
  if (!handle) return accepted;
  const loop = new ReadLoop(budget);
  holder._handle = null;
  const socket = new net.Socket({
    handle,
    allowHalfOpen: true,
    pauseOnCreate: true,
    onread: loop.onread,
  } as net.SocketConstructorOpts);
  // The server counts the accepted socket (its `maxConnections`) until the new one closes, and
  // whoever holds the accepted socket can still end the connection by destroying it.
  socket.once('close', () => accepted.destroy());
  accepted.once('close', () => socket.destroy());
  return bindReadLoop(socket, loop);
}
