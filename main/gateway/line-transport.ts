/**
 * An MCP transport over a pair of byte streams carrying newline-delimited JSON-RPC (the stdio
 * transport's framing), with a hard limit on message size. Unlike the SDK's ReadBuffer it keeps
 * memory bounded while skipping an oversized line, resynchronises on the next newline, and
 * relays messages as they are (no schema stripping), so the gateway stays agnostic of the
 * protocol version the two sides negotiate.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Reported through `onoversize` when a message longer than the limit was skipped. */
export interface OversizedMessage {
  bytes: number;
  /** The JSON-RPC id found at either end of the skipped text, when there was one. */
  id: string | number | undefined;
}

const ID_PATTERN = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;

function findId(text: string): string | number | undefined {
  const m = ID_PATTERN.exec(text);
  if (!m?.[1]) return undefined;
  return m[1].startsWith('"') ? (JSON.parse(m[1]) as string) : Number(m[1]);
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called for a non-JSON or non-JSON-RPC line (e.g. a server printing to stdout). */
  onjunk?: (line: string) => void;
  onoversize?: (info: OversizedMessage) => void;

  /** Bytes of the message last delivered through `onmessage` (read it inside the callback). */
  lastMessageBytes = 0;

  private chunks: Buffer[] = [];
  private buffered = 0;
  private skipping: { bytes: number; head: string; tail: string } | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.output.destroyed || !this.output.writable) {
      return Promise.reject(new Error('transport closed'));
    }
    const ok = this.output.write(`${JSON.stringify(message)}\n`);
    if (ok) return Promise.resolve();
    return new Promise((resolve) => this.output.once('drain', resolve));
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off('data', this.onData);
    this.chunks = [];
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const nl = data.indexOf(0x0a);
      const part = nl < 0 ? data : data.subarray(0, nl);
      if (this.skipping) this.skip(part);
      else if (this.buffered + part.length > this.maxMessageBytes) {
        const head = Buffer.concat([...this.chunks, part])
          .subarray(0, 512)
          .toString('utf8');
        this.skipping = { bytes: this.buffered, head, tail: '' };
        this.chunks = [];
        this.buffered = 0;
        this.skip(part);
      } else {
        this.chunks.push(part);
        this.buffered += part.length;
      }
      if (nl < 0) break;
      this.endLine();
      data = data.subarray(nl + 1);
    }
  };

  private skip(part: Buffer): void {
    const s = this.skipping!;
    s.bytes += part.length;
    s.tail = (s.tail + part.subarray(Math.max(0, part.length - 512)).toString('utf8')).slice(-512);
  }

  private endLine(): void {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = undefined;
      this.onoversize?.({ bytes, id: findId(tail) ?? findId(head) });
      return;
    }
    const line = (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString(
      'utf8',
    );
    this.chunks = [];
    this.buffered = 0;
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      this.onjunk?.(trimmed);
      return;
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      (parsed as { jsonrpc?: unknown }).jsonrpc !== '2.0'
    ) {
      this.onjunk?.(trimmed);
      return;
    }
    this.onmessage?.(parsed as JSONRPCMessage);
  }
}
