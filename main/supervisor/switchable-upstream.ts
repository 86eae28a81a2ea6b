/**
 * The server side of a relay that outlives one process: messages to the server wait in a bounded
 * queue while the instance (re)starts; after a restart the client's `initialize` handshake is
 * replayed to the new process and its answer swallowed, so the client's session goes on.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const MAX_QUEUED = 1000;
const REPLAY_ID = 'warden-replay-initialize';

const idOf = (m: JSONRPCMessage) => ('id' in m ? m.id : undefined);

export class SwitchableUpstream implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Called when a message must go out while no process is attached (e.g. after idle stop). */
  onneeded?: () => void;
  /** Called when the attached process answered `initialize` (the client's or the replayed one). */
  onready?: () => void;

  private current: Transport | undefined;
  private queue: JSONRPCMessage[] = [];
  private initialize: JSONRPCMessage | undefined;
  private initialized: JSONRPCMessage | undefined;

  /** The name and version the client gave in its `initialize` (untrusted text), if it did. */
  clientInfo(): string | undefined {
    const params =
      this.initialize && 'params' in this.initialize ? this.initialize.params : undefined;
    const info = (params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)
      ?.clientInfo;
    if (typeof info?.name !== 'string' || info.name === '') return undefined;
    const version = typeof info.version === 'string' ? ` ${info.version}` : '';
    return `${info.name}${version}`.slice(0, 200);
  }

  /** The capabilities the client declared in its `initialize` (untrusted), if it sent one. */
  clientCapabilities(): unknown {
    const params =
      this.initialize && 'params' in this.initialize ? this.initialize.params : undefined;
    return (params as { capabilities?: unknown } | undefined)?.capabilities;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Not async: the attached transport's own answer (see `WRITTEN`) passes through unchanged. */
  send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && message.method === 'initialize') this.initialize = message;
    if ('method' in message && message.method === 'notifications/initialized')
      this.initialized = message;
    if (this.current) return this.current.send(message);
    if (this.queue.length >= MAX_QUEUED)
      return Promise.reject(new Error('too many messages waiting for the server to start'));
    this.queue.push(message);
    try {
      this.onneeded?.();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return Promise.resolve();
  }

  /** Attaches a freshly started process; replays the handshake if the client already made it. */
  async attach(transport: Transport): Promise<void> {
    const replay = this.initialize !== undefined && !this.queue.includes(this.initialize);
    transport.onmessage = (m) => {
      const answersInitialize =
        'id' in m &&
        !('method' in m) &&
        (m.id === REPLAY_ID || (this.initialize !== undefined && m.id === idOf(this.initialize)));
      if (answersInitialize && 'result' in m) this.onready?.();
      if ('id' in m && m.id === REPLAY_ID && !('method' in m)) return;
      this.onmessage?.(m);
    };
    this.current = transport;
    if (replay && this.initialize) {
      await transport.send({ ...this.initialize, id: REPLAY_ID });
      if (this.initialized) await transport.send(this.initialized);
    }
    const queued = this.queue;
    this.queue = [];
    for (const m of queued) await transport.send(m);
  }

  /** Detaches the process that ended. */
  detach(): void {
    this.current = undefined;
  }

  /** Drops what was waiting (the instance failed for good). */
  drain(): JSONRPCMessage[] {
    const q = this.queue;
    this.queue = [];
    return q;
  }

  close(): Promise<void> {
    this.current = undefined;
    this.onclose?.();
    return Promise.resolve();
  }
}
