/**
 * The frame format of the egress channel (fd 3 inside the sandbox, `child.stdio[3]` on the host).
 * Every frame is `[u32 stream id][u8 type][u32 payload length][payload]`, big-endian. The sandbox
 * side opens streams; each direction of each stream has a credit window so that one slow stream
 * cannot hold memory or block the others. Shared by the sandbox init and the host broker.
 */

export const FrameType = {
  /** sandbox → host: payload `[u16 port][host, UTF-8]`. */
  Open: 1,
  /** host → sandbox: the destination is connected; both sides start with `WINDOW_BYTES` credit. */
  OpenOk: 2,
  /** host → sandbox: payload `[u8 FailCode][reason, UTF-8]`. */
  OpenFail: 3,
  Data: 4,
  /** The sender will send no more data on this stream (half-close). */
  End: 5,
  /** Abort both directions. */
  Reset: 6,
  /** payload `[u32 bytes]`: more credit for the receiver of this frame. */
  Window: 7,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

/** Why the host refused a stream; the init turns it into an HTTP status or SOCKS5 reply. */
export const FailCode = {
  Denied: 1,
  NotAllowed: 2,
  AskTimeout: 3,
  AddressBlocked: 4,
  ResolveFailed: 5,
  ConnectFailed: 6,
  Limit: 7,
  BadDestination: 8,
} as const;
export type FailCode = (typeof FailCode)[keyof typeof FailCode];

export const HEADER_BYTES = 9;
export const MAX_DATA_BYTES = 64 * 1024;
export const MAX_CONTROL_BYTES = 1024;
export const WINDOW_BYTES = 256 * 1024;
const MAX_HOST_BYTES = 255;

/** Builds a frame header. */
export function frameHeader(id: number, type: FrameType, length: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_BYTES);
  h.writeUInt32BE(id, 0);
  h.writeUInt8(type, 4);
  h.writeUInt32BE(length, 5);
  return h;
}

/** Encodes an OPEN payload; undefined when the host name cannot be sent. */
export function encodeOpen(host: string, port: number): Buffer | undefined {
  const name = Buffer.from(host, 'utf8');
  if (name.length === 0 || name.length > MAX_HOST_BYTES || port < 1 || port > 65535)
    return undefined;
  const out = Buffer.allocUnsafe(2 + name.length);
  out.writeUInt16BE(port, 0);
  name.copy(out, 2);
  return out;
}

/** Decodes an OPEN payload; undefined when malformed. */
export function decodeOpen(p: Buffer): { host: string; port: number } | undefined {
  if (p.length < 3 || p.length > 2 + MAX_HOST_BYTES) return undefined;
  const port = p.readUInt16BE(0);
  const host = p.subarray(2).toString('utf8');
  return port === 0 || host.includes('\0') ? undefined : { host, port };
}

export function encodeFail(code: FailCode, reason: string): Buffer {
  const text = Buffer.from(reason.slice(0, 400), 'utf8');
  return Buffer.concat([Buffer.from([code]), text]);
}

export function decodeFail(p: Buffer): { code: number; reason: string } {
  return { code: p.length > 0 ? p[0]! : 0, reason: p.subarray(1).toString('utf8') };
}

/** Largest payload a frame of this type may carry. */
export function maxPayload(type: number): number | undefined {
  if (type === FrameType.Data) return MAX_DATA_BYTES;
  if (type >= FrameType.Open && type <= FrameType.Window) return MAX_CONTROL_BYTES;
  return undefined;
}

/**
 * Incremental frame parser. Calls `onFrame` for each control frame once it is whole, and for DATA
 * frames with each piece of payload as it arrives (no copy, no reassembly: a 64 KiB frame rarely
 * fits one socket read). Calls `onError` once, then ignores all further input, when the bytes are
 * not a valid frame stream.
 */
export class FrameReader {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerLength = 0;
  private current: { id: number; type: FrameType; remaining: number; parts: Buffer[] } | undefined;
  private failed = false;

  constructor(
    private readonly onFrame: (id: number, type: FrameType, payload: Buffer) => void,
    private readonly onError: (message: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let off = 0;
    while (!this.failed && off < chunk.length) {
      const cur = this.current;
      if (!cur) {
        const n = Math.min(HEADER_BYTES - this.headerLength, chunk.length - off);
        chunk.copy(this.header, this.headerLength, off, off + n);
        this.headerLength += n;
        off += n;
        if (this.headerLength < HEADER_BYTES) return;
        this.headerLength = 0;
        this.startFrame();
        continue;
      }
      const n = Math.min(cur.remaining, chunk.length - off);
      const piece = chunk.subarray(off, off + n);
      off += n;
      cur.remaining -= n;
      if (cur.remaining === 0) this.current = undefined;
      if (cur.type === FrameType.Data) this.onFrame(cur.id, cur.type, piece);
      else {
        cur.parts.push(piece);
        if (cur.remaining === 0) this.onFrame(cur.id, cur.type, Buffer.concat(cur.parts));
      }
    }
  }

  private startFrame(): void {
    const id = this.header.readUInt32BE(0);
    const type = this.header.readUInt8(4);
    const length = this.header.readUInt32BE(5);
    const max = maxPayload(type);
    if (max === undefined) return this.fail(`unknown frame type ${type}`);
    if (length > max) return this.fail(`frame of ${length} bytes exceeds ${max} for type ${type}`);
    if (length === 0) return this.onFrame(id, type as FrameType, Buffer.alloc(0));
    this.current = { id, type: type as FrameType, remaining: length, parts: [] };
  }

  private fail(message: string): void {
    this.failed = true;
    this.current = undefined;
    this.onError(message);
  }
}
