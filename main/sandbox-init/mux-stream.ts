/**
 * One multiplexed connection as a Node Duplex. Writes leave as DATA frames only while the peer
 * has granted credit; credit is returned only once received bytes have left the readable buffer,
 * so each stream holds at most one window in memory on each side.
 */
import { Duplex } from 'node:stream';
import { FrameType, MAX_DATA_BYTES, WINDOW_BYTES } from './mux-frames';

/** What a stream needs from its session. */
export interface StreamHost {
  send(id: number, type: FrameType, payload?: Buffer): void;
  readonly congested: boolean;
  forget(id: number): void;
  violation(message: string): void;
}

export class MuxStream extends Duplex {
  /** Bytes the peer still lets us send. */
  private sendCredit: number;
  /** Credit returned to the peer so far, beyond the initial window. */
  private returned = 0;
  /** Bytes handed to the consumer (every chunk leaves a Readable through a 'data' event). */
  private consumed = 0;
  private pending: { chunk: Buffer; offset: number; cb: (e?: Error | null) => void } | undefined;
  private remoteEnded = false;
  private localEnded = false;
  private resetByPeer = false;
  /** Set once the host accepted the stream; until then a reset is a refusal, not a hang-up. */
  isOpen = false;
  bytesIn = 0;
  bytesOut = 0;

  constructor(
    readonly id: number,
    private readonly host: StreamHost,
    initialCredit: number,
  ) {
    super({
      allowHalfOpen: true,
      readableHighWaterMark: WINDOW_BYTES,
      writableHighWaterMark: 64 * 1024,
    });
    this.sendCredit = initialCredit;
  }

  /** True once the peer aborted the stream. */
  get wasReset(): boolean {
    return this.resetByPeer;
  }

  /** Session calls this when OPEN_OK arrives (sandbox side) or is sent (host side). */
  grant(bytes: number): void {
    if (this.sendCredit + bytes > 2 ** 31)
      return this.host.violation(`window overflow on stream ${this.id}`);
    this.sendCredit += bytes;
    this.flush();
  }

  /** Session calls this for each DATA frame of this stream. */
  onData(payload: Buffer): void {
    if (this.remoteEnded) return this.host.violation(`data after end on stream ${this.id}`);
    if (this.bytesIn + payload.length > WINDOW_BYTES + this.returned) {
      return this.host.violation(`stream ${this.id} exceeded its window`);
    }
    this.bytesIn += payload.length;
    this.push(payload);
  }

  onEnd(): void {
    if (this.remoteEnded) return this.host.violation(`second end on stream ${this.id}`);
    this.remoteEnded = true;
    this.push(null);
    this.maybeForget();
  }

  onReset(): void {
    this.resetByPeer = true;
    this.destroy();
  }

  /** Session calls this when the channel can take more. */
  flush(): void {
    const p = this.pending;
    while (p && this.sendCredit > 0 && !this.host.congested && !this.destroyed) {
      const n = Math.min(this.sendCredit, MAX_DATA_BYTES, p.chunk.length - p.offset);
      this.host.send(this.id, FrameType.Data, p.chunk.subarray(p.offset, p.offset + n));
      this.sendCredit -= n;
      this.bytesOut += n;
      p.offset += n;
      if (p.offset === p.chunk.length) {
        this.pending = undefined;
        p.cb();
        return;
      }
    }
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.pending = { chunk, offset: 0, cb };
    this.flush();
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.localEnded = true;
    this.host.send(this.id, FrameType.End);
    cb();
    this.maybeForget();
  }

  override _read(): void {
    // Credit is returned as data is consumed (see emit), not when the buffer asks for more.
  }

  /**
   * Counts consumed bytes: a Readable hands out every chunk through a 'data' event, in flowing
   * and paused mode alike, and a listener cannot be added without switching modes.
   */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const handled = super.emit(event, ...args);
    if (event === 'data') {
      this.consumed += (args[0] as Buffer).length;
      this.returnCredit(WINDOW_BYTES / 4);
    }
    return handled;
  }

  override _destroy(e: Error | null, cb: (e?: Error | null) => void): void {
    if (!this.resetByPeer && !(this.localEnded && this.remoteEnded))
      this.host.send(this.id, FrameType.Reset);
    this.host.forget(this.id);
    this.pending = undefined;
    cb(e);
  }

  /**
   * Returns credit for consumed bytes in batches of at least `min` bytes, so that the peer never
   * has more than one window in flight or buffered here.
   */
  private returnCredit(min: number): void {
    const consumed = this.consumed - this.returned;
    if (consumed < min || this.remoteEnded || this.destroyed) return;
    const w = Buffer.allocUnsafe(4);
    w.writeUInt32BE(consumed, 0);
    this.returned += consumed;
    this.host.send(this.id, FrameType.Window, w);
  }

  private maybeForget(): void {
    if (this.localEnded && this.remoteEnded) this.host.forget(this.id);
  }
}
