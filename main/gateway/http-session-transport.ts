/**
 * One Streamable HTTP session as the relay sees it: the SDK's transport, with back-pressure and
 * an end the front door hears about. The SDK writes each server message into a web
 * ReadableStream per SSE response and never waits for the client to read it, so a client that
 * stops reading would let that stream's queue grow without bound. `send` here resolves only once
 * the queues are under {@link SSE_HIGH_WATER}, which holds the relay's pipeline, which pauses the
 * server's stdout.
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** Events and bytes that may wait in a session's SSE streams before `send` waits. */
export const SSE_HIGH_WATER = { events: 16, bytes: 2 * 1024 * 1024 } as const;
const POLL_MS = 2;
const RECENT = 1024;

interface StreamEntry {
  controller?: { desiredSize: number | null };
}

/**
 * The SSE stream queues of an SDK transport. The SDK keeps them private (`_streamMapping` of its
 * web-standard transport); reading them is the only way to see how much waits unread.
 */
function streamQueues(t: StreamableHTTPServerTransport): Map<unknown, StreamEntry> | undefined {
  const web = (t as unknown as { _webStandardTransport?: { _streamMapping?: unknown } })
    ._webStandardTransport;
  const map = web?._streamMapping;
  return map instanceof Map ? (map as Map<unknown, StreamEntry>) : undefined;
}

export class HttpSessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly queues: Map<unknown, StreamEntry>;
  /** Sizes of the last messages sent, newest last, to estimate the bytes still queued. */
  private readonly recent: number[] = [];
  private closed = false;

  constructor(
    readonly inner: StreamableHTTPServerTransport,
    private readonly onEnded: () => void,
  ) {
    const queues = streamQueues(inner);
    if (!queues)
      throw new Error(
        'this version of the MCP SDK hides the SSE queues that Warden paces; the HTTP front door cannot bound its memory with it',
      );
    this.queues = queues;
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      this.closed = true;
      this.onEnded();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.inner.send(message, options);
    this.recent.push(JSON.stringify(message).length);
    if (this.recent.length > RECENT) this.recent.shift();
    while (!this.closed && this.overHighWater()) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Events waiting unread in the SSE streams. */
  queuedEvents(): number {
    let queued = 0;
    for (const entry of this.queues.values()) {
      const desired = entry.controller?.desiredSize;
      // A ReadableStream's default high-water mark is one chunk: desiredSize = 1 - queued.
      if (typeof desired === 'number' && desired < 1) queued += 1 - desired;
    }
    return queued;
  }

  /** Bytes waiting unread, estimated from the sizes of the last messages sent. */
  bufferedBytes(): number {
    const events = Math.min(this.queuedEvents(), this.recent.length);
    let bytes = 0;
    for (let i = this.recent.length - events; i < this.recent.length; i++) bytes += this.recent[i]!;
    return bytes;
  }

  private overHighWater(): boolean {
    return (
      this.queuedEvents() > SSE_HIGH_WATER.events || this.bufferedBytes() > SSE_HIGH_WATER.bytes
    );
  }
}
