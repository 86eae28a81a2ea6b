/**
 * Both ends of the egress channel. The sandbox side opens streams; the host side receives OPEN,
 * decides, then accepts or refuses. Every incoming frame is checked; a frame that breaks the
 * protocol ends the whole channel (and only it) with a `violation` event, never an exception.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  FailCode,
  FrameReader,
  FrameType,
  WINDOW_BYTES,
  decodeFail,
  decodeOpen,
  encodeFail,
  encodeOpen,
  frameHeader,
} from './mux-frames';
import { MuxStream, type StreamHost } from './mux-stream';

/** Bytes queued on the channel before streams stop sending until it drains. */
const CHANNEL_QUEUE_BYTES = 512 * 1024;

export interface MuxSessionOptions {
  role: 'sandbox' | 'host';
  /** Streams open or awaiting a decision at once; more are refused with `FailCode.Limit`. */
  maxStreams?: number;
  /**
   * Bytes queued on the channel beyond which the peer counts as not reading it (only control
   * frames can pile up past the DATA limit): the channel is closed as a violation.
   */
  maxQueuedBytes?: number;
}

/** A stream refused by the host, as the sandbox side sees it. */
export interface OpenRefusal {
  code: number;
  reason: string;
}

export class MuxSession extends EventEmitter implements StreamHost {
  readonly streams = new Map<number, MuxStream>();
  private readonly unaccepted = new Set<number>();
  private nextId = 1;
  private highestId = 0;
  private closed = false;
  congested = false;
  private readonly reader: FrameReader;
  private readonly maxStreams: number;

  constructor(
    private readonly channel: Duplex,
    private readonly opts: MuxSessionOptions,
  ) {
    super();
    this.maxStreams = opts.maxStreams ?? 128;
    this.reader = new FrameReader(
      (id, type, payload) => this.onFrame(id, type, payload),
      (message) => this.violation(message),
    );
    channel.on('data', (chunk: Buffer) => this.reader.push(chunk));
    channel.on('drain', () => {
      this.congested = false;
      for (const s of this.streams.values()) s.flush();
    });
    channel.on('error', () => this.close());
    channel.on('close', () => this.close());
    channel.on('end', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sandbox side: asks the host for a connection. The stream emits `opened` or `refused`. */
  open(host: string, port: number): MuxStream {
    const id = this.nextId++;
    const stream = new MuxStream(id, this, 0);
    const payload = encodeOpen(host, port);
    if (!payload || this.closed || id > 0xffffffff) {
      const refusal: OpenRefusal = {
        code: FailCode.BadDestination,
        reason: 'cannot send this destination',
      };
      queueMicrotask(() => stream.emit('refused', refusal));
      return stream;
    }
    this.streams.set(id, stream);
    this.unaccepted.add(id);
    this.send(id, FrameType.Open, payload);
    return stream;
  }

  /** Host side: the destination is connected; data may flow. */
  accept(stream: MuxStream): void {
    if (!this.unaccepted.delete(stream.id) || stream.destroyed) return;
    this.send(stream.id, FrameType.OpenOk);
    stream.isOpen = true;
    stream.grant(WINDOW_BYTES);
  }

  /** Host side: refuses a stream with a reason the sandbox turns into an HTTP or SOCKS error. */
  refuse(stream: MuxStream, code: FailCode, reason: string): void {
    if (!this.unaccepted.delete(stream.id) || stream.destroyed) return;
    this.send(stream.id, FrameType.OpenFail, encodeFail(code, reason));
    this.streams.delete(stream.id);
    stream.onReset();
  }

  send(id: number, type: FrameType, payload?: Buffer): void {
    if (this.closed) return;
    const header = frameHeader(id, type, payload?.length ?? 0);
    this.channel.cork();
    let flowing = this.channel.write(header);
    if (payload && payload.length > 0) flowing = this.channel.write(payload);
    this.channel.uncork();
    // The channel's own high-water mark (16 KiB) is below one frame; queue up to CHANNEL_QUEUE.
    if (!flowing && this.channel.writableLength >= CHANNEL_QUEUE_BYTES) this.congested = true;
    if (this.channel.writableLength > (this.opts.maxQueuedBytes ?? 8 * 1024 * 1024)) {
      this.violation('the peer does not read the channel');
    }
  }

  forget(id: number): void {
    this.streams.delete(id);
    this.unaccepted.delete(id);
  }

  violation(message: string): void {
    if (this.closed) return;
    this.emit('violation', message);
    this.close();
  }

  /** Ends every stream and the channel. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.onReset();
    this.streams.clear();
    this.channel.destroy();
    this.emit('close');
  }

  private onFrame(id: number, type: FrameType, payload: Buffer): void {
    if (type === FrameType.Open) return this.onOpen(id, payload);
    const stream = this.streams.get(id);
    if (!stream) {
      // Late frames for a stream that one side already closed are normal; unknown ids are not.
      const known = this.opts.role === 'host' ? this.highestId : this.nextId - 1;
      if (id === 0 || id > known || type === FrameType.OpenOk)
        this.violation(`frame ${type} for unknown stream ${id}`);
      return;
    }
    const waiting = this.unaccepted.has(id);
    switch (type) {
      case FrameType.OpenOk:
      case FrameType.OpenFail:
        if (this.opts.role !== 'sandbox' || !waiting)
          return this.violation(`unexpected open reply on ${id}`);
        this.unaccepted.delete(id);
        if (type === FrameType.OpenOk) {
          stream.isOpen = true;
          stream.grant(WINDOW_BYTES);
          stream.emit('opened');
        } else {
          this.streams.delete(id);
          stream.emit('refused', decodeFail(payload) satisfies OpenRefusal);
          stream.onReset();
        }
        return;
      case FrameType.Data:
        if (waiting) return this.violation(`data before open on stream ${id}`);
        return stream.onData(payload);
      case FrameType.End:
        if (waiting) return this.violation(`end before open on stream ${id}`);
        return stream.onEnd();
      case FrameType.Window:
        if (payload.length !== 4) return this.violation(`bad window frame on stream ${id}`);
        return stream.grant(payload.readUInt32BE(0));
      case FrameType.Reset:
        this.forget(id);
        return stream.onReset();
    }
  }

  private onOpen(id: number, payload: Buffer): void {
    if (this.opts.role !== 'host') return this.violation('the host cannot open streams');
    if (id <= this.highestId) return this.violation(`stream id ${id} reused or out of order`);
    this.highestId = id;
    const dest = decodeOpen(payload);
    if (!dest) return this.violation(`malformed open on stream ${id}`);
    if (this.streams.size >= this.maxStreams) {
      this.send(
        id,
        FrameType.OpenFail,
        encodeFail(FailCode.Limit, `more than ${this.maxStreams} connections at once`),
      );
      this.emit('limit', dest.host, dest.port);
      return;
    }
    const stream = new MuxStream(id, this, 0);
    this.streams.set(id, stream);
    this.unaccepted.add(id);
    this.emit('open', stream, dest.host, dest.port);
  }
}
