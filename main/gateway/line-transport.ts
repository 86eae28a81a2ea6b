/**
 * An MCP transport over a pair of byte streams carrying newline-delimited JSON-RPC (the stdio
 * transport's framing), with hard limits on message size and nesting depth. Unlike the SDK's
 * ReadBuffer it keeps memory bounded while skipping an oversized line, resynchronises on the next
 * newline, refuses a deeply nested message before parsing it, and relays messages as they are (no
 * schema stripping), so the gateway stays agnostic of the protocol version the two sides
 * negotiate. `pause()` stops delivery at once (even within a chunk already read) and stops reading
 * the stream, so a slow consumer holds the producer back instead of growing a buffer.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  MAX_MESSAGE_CONTAINERS,
  MAX_MESSAGE_DEPTH,
  jsonTextShape,
} from '../../app/json/json-depth';

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Reported through `onrefused` when a message over a limit was skipped unparsed. */
export interface RefusedMessage {
  limit: 'messageBytes' | 'messageDepth' | 'messageContainers';
  /** The limit's value (bytes, levels, or arrays and objects). */
  max: number;
  bytes: number;
  /** The JSON-RPC id found at either end of the skipped text, when there was one. */
  id: string | number | undefined;
  /** Whether the text looked like a request or notification (has a "method"). */
  hasMethod: boolean;
  /** Whether it looked like an answer (has a "result" or an "error"). */
  hasAnswer: boolean;
}

const ID_PATTERN = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;
const METHOD_PATTERN = /"method"\s*:\s*"/;
const ANSWER_PATTERN = /"(?:result|error)"\s*:/;

/**
 * What `send` returns when the stream took the message at once: a caller that sees it has nothing
 * to wait for (the relay then goes on in the same turn instead of a promise later).
 */
export const WRITTEN: Promise<void> = Promise.resolve();

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
  onrefused?: (info: RefusedMessage) => void;
  /**
   * Called, when set, once the input has ended while the output may still be written (a client
   * that closed its writing side and reads on): the session answers what it was sent, then closes
   * the transport. Unset, the end of the input closes the transport at once.
   */
  oninputend?: () => void;
  /** Whether `close()` also ends the output: a socket's peer learns so that the session ended. */
  endsOutput = false;

  /** Bytes of the message last delivered through `onmessage` (read it inside the callback). */
  lastMessageBytes = 0;
  /**
   * Whether the message being delivered ends the chunk it was read in, so that nothing more is
   * delivered in this turn (read it inside the callback).
   */
  lastInChunk = false;

  private chunks: Buffer[] = [];
  private buffered = 0;
  private skipping: { bytes: number; head: string; tail: string } | undefined;
  private closed = false;
  private inputEnded = false;
  private paused = false;
  private corked = false;
  /** The unprocessed rest of a chunk read before `pause()`. */
  private held: Buffer | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
    private readonly maxDepth = MAX_MESSAGE_DEPTH,
    private readonly maxContainers = MAX_MESSAGE_CONTAINERS,
  ) {}

  /** Stops delivering messages and reading the input until `resume()`. */
  pause(): void {
    if (this.paused || this.closed) return;
    this.paused = true;
    this.input.pause();
  }

  resume(): void {
    if (!this.paused || this.closed) return;
    this.paused = false;
    const held = this.held;
    this.held = undefined;
    if (held) this.onData(held);
    if (!this.paused) this.input.resume();
  }

  /** Bytes this transport holds in memory: a partial line, a held chunk, unsent output. */
  bufferedBytes(): number {
    return this.buffered + (this.held?.length ?? 0) + this.output.writableLength;
  }

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onInputEnd);
    this.input.once('close', this.onInputClose);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.output.destroyed || !this.output.writable) {
      return Promise.reject(new Error('transport closed'));
    }
    this.corkForTick();
    const ok = this.output.write(`${JSON.stringify(message)}\n`);
    if (ok) return WRITTEN;
    // Resolves on drain, or when the stream goes away (its close handler ends the session).
    return new Promise((resolve) => {
      const done = () => {
        this.output.off('drain', done);
        this.output.off('close', done);
        resolve();
      };
      this.output.on('drain', done);
      this.output.on('close', done);
    });
  }

  /**
   * Holds this tick's writes and hands them to the stream together once the handling in progress
   * is done (one write call for all the answers read from one chunk).
   */
  private corkForTick(): void {
    if (this.corked) return;
    this.corked = true;
    this.output.cork();
    process.nextTick(this.uncork);
  }

  private readonly uncork = () => {
    this.corked = false;
    this.output.uncork();
  };

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off('data', this.onData);
    this.chunks = [];
    this.held = undefined;
    this.onclose?.();
    if (this.endsOutput && !this.output.writableEnded && !this.output.destroyed) this.output.end();
    return Promise.resolve();
  }

  private readonly onInputEnd = () => {
    this.inputEnded = true;
    if (this.oninputend && !this.closed) this.oninputend();
    else void this.close();
  };

  private readonly onInputClose = () => {
    // A pipe closes its reading side after its end; the output is still the client's to read.
    if (this.inputEnded && this.oninputend && this.output.writable) return;
    void this.close();
  };

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      if (this.paused || this.closed) {
        if (!this.closed) this.held = this.held ? Buffer.concat([this.held, data]) : data;
        return;
      }
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
      this.lastInChunk = nl + 1 === data.length;
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
      this.onrefused?.({
        limit: 'messageBytes',
        max: this.maxMessageBytes,
        bytes,
        id: findId(tail) ?? findId(head),
        hasMethod: METHOD_PATTERN.test(head),
        hasAnswer: ANSWER_PATTERN.test(head),
      });
      return;
    }
    const line = (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString(
      'utf8',
    );
    const bytes = this.buffered;
    this.chunks = [];
    this.buffered = 0;
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim() === '') return;
    const shape = jsonTextShape(trimmed, this.maxDepth, this.maxContainers);
    const deep = shape.depth > this.maxDepth;
    if (deep || shape.containers > this.maxContainers) {
      const ends = `${trimmed.slice(0, 512)}\n${trimmed.slice(-512)}`;
      this.onrefused?.({
        limit: deep ? 'messageDepth' : 'messageContainers',
        max: deep ? this.maxDepth : this.maxContainers,
        bytes: line.length,
        id: findId(ends),
        hasMethod: METHOD_PATTERN.test(trimmed.slice(0, 512)),
        hasAnswer: ANSWER_PATTERN.test(trimmed.slice(0, 512)),
      });
      return;
    }
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
    this.lastMessageBytes = bytes + 1;
    this.onmessage?.(parsed as JSONRPCMessage);
  }
}
