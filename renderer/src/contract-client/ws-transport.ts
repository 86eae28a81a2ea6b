/**
 * The contract over WebSocket (web mode): requests and replies in the wire.ts shapes, core events
 * pushed to listeners, reconnection with capped exponential backoff. The credential, the session
 * token a script has or the session secret of a signed-in browser (browser-session.ts), is
 * offered in `Sec-WebSocket-Protocol` as `warden.token.<credential>`, never in a URL or a cookie.
 *
 * Written against a minimal socket interface rather than the DOM's WebSocket so that it runs
 * against the real server in plain Node tests too.
 */
import type { ContractTransport } from '../../../app/contract/api';
import { ContractCallError, type ContractError } from '../../../app/contract/contract-error';
import {
  type EventName,
  type OperationName,
  events,
  isEventName,
} from '../../../app/contract/contract';
import {
  SESSION_ENDED_CODE,
  type SessionEnd,
  sessionEndSchema,
  wireEventSchema,
  wireReplySchema,
} from '../../../app/contract/wire';

/** The part of a WebSocket the transport uses (the DOM's WebSocket and `ws` both fit). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(
    type: 'close',
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

export type CreateSocket = (url: string, protocols: string[]) => SocketLike;

export type ConnectionStatus =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open' }
  | { kind: 'waiting'; attempt: number; retryInMs: number }
  | { kind: 'stopped'; reason: string }
  /** The server closed the socket because the browser's session ended: no use retrying. */
  | { kind: 'signed-out'; why: SessionEnd };

export interface WsTransportOptions {
  /** e.g. `ws://127.0.0.1:4312/ws`. */
  url: string;
  /**
   * The credential to offer: the session token, or a function asked before each connection (a
   * browser's session secret) that answers undefined when there is none: the transport stops.
   */
  token?: string | (() => Promise<string | undefined>);
  createSocket: CreateSocket;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A call without a reply after this long is rejected. */
  callTimeoutMs?: number;
}

const OPEN = 1;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
  sent: boolean;
  message: string;
}

const lostError: ContractError = {
  kind: 'internal',
  message:
    'The connection to Warden closed before it answered; the change may or may not have been made',
  remedy:
    'Check that "warden serve" is still running; this page reconnects by itself. Then look at the list again.',
};

/** A reconnecting WebSocket implementation of `ContractTransport`. */
export class WsTransport implements ContractTransport {
  private socket: SocketLike | undefined;
  private nextId = 1;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  private readonly statusListeners = new Set<(status: ConnectionStatus) => void>();
  private current: ConnectionStatus = { kind: 'connecting', attempt: 0 };

  constructor(private readonly opts: WsTransportOptions) {
    this.connect();
  }

  get status(): ConnectionStatus {
    return this.current;
  }

  call(name: OperationName, input: unknown): Promise<unknown> {
    if (this.stopped) return Promise.reject(new ContractCallError(lostError));
    const id = this.nextId++;
    const message = JSON.stringify({ id, op: name, input });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ContractCallError({
            kind: 'internal',
            message: `Warden did not answer "${name}" in time`,
            remedy: 'Check that "warden serve" is still running, then retry.',
          }),
        );
      }, this.opts.callTimeoutMs ?? 30_000);
      const entry: Pending = { resolve, reject, timer, sent: false, message };
      this.pending.set(id, entry);
      this.flush();
    });
  }

  on(event: EventName, listener: (payload: unknown) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Subscribes to connection status changes; returns the unsubscribe function. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Closes for good: no reconnection, every waiting call is rejected. */
  close(): void {
    this.stop({ kind: 'stopped', reason: 'closed' });
  }

  private stop(status: Extract<ConnectionStatus, { kind: 'stopped' | 'signed-out' }>): void {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.socket?.close(1000, 'closed by the page');
    this.failPending(() => true);
    this.setStatus(status);
  }

  private connect(): void {
    this.setStatus({ kind: 'connecting', attempt: this.attempt });
    const token = this.opts.token;
    if (typeof token !== 'function') return this.open(token);
    token().then(
      (credential) => {
        if (this.stopped) return;
        if (credential !== undefined) this.open(credential);
        else this.stop({ kind: 'stopped', reason: 'not signed in' });
      },
      (error: unknown) => {
        if (!this.stopped) this.stop({ kind: 'stopped', reason: String(error) });
      },
    );
  }

  private open(token: string | undefined): void {
    let socket: SocketLike;
    try {
      socket = this.opts.createSocket(
        this.opts.url,
        token === undefined ? ['warden.v1'] : ['warden.v1', `warden.token.${token}`],
      );
    } catch (error) {
      this.setStatus({ kind: 'stopped', reason: String(error) });
      return;
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.setStatus({ kind: 'open' });
      this.flush();
    });
    socket.addEventListener('message', (event) => {
      if (socket === this.socket && typeof event.data === 'string') this.receive(event.data);
    });
    // A failed connection is followed by 'close', which schedules the retry.
    socket.addEventListener('error', () => undefined);
    socket.addEventListener('close', (event) => {
      if (socket !== this.socket) return;
      this.socket = undefined;
      if (event.code === SESSION_ENDED_CODE) {
        const why = sessionEndSchema.safeParse(event.reason);
        return this.stop({ kind: 'signed-out', why: why.success ? why.data : 'expired' });
      }
      // Calls already sent may or may not have run; calls not yet sent wait for the next socket.
      this.failPending((p) => p.sent);
      if (!this.stopped) this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    const initial = this.opts.initialBackoffMs ?? 250;
    const max = this.opts.maxBackoffMs ?? 5_000;
    const base = Math.min(max, initial * 2 ** this.attempt);
    const retryInMs = Math.round(base / 2 + (Math.random() * base) / 2);
    this.attempt += 1;
    this.setStatus({ kind: 'waiting', attempt: this.attempt, retryInMs });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, retryInMs);
  }

  private flush(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    for (const entry of this.pending.values()) {
      if (entry.sent) continue;
      entry.sent = true;
      socket.send(entry.message);
    }
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const reply = wireReplySchema.safeParse(message);
    if (reply.success) {
      const entry = this.pending.get(reply.data.id);
      if (!entry) return;
      this.pending.delete(reply.data.id);
      clearTimeout(entry.timer);
      if (reply.data.ok) entry.resolve(reply.data.value);
      else entry.reject(new ContractCallError(reply.data.error));
      return;
    }
    const pushed = wireEventSchema.safeParse(message);
    if (!pushed.success || !isEventName(pushed.data.event)) return;
    const payload = events[pushed.data.event].safeParse(pushed.data.payload);
    if (!payload.success) return;
    for (const listener of this.listeners.get(pushed.data.event) ?? []) listener(payload.data);
  }

  private failPending(which: (p: Pending) => boolean): void {
    for (const [id, entry] of this.pending) {
      if (!which(entry)) continue;
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(new ContractCallError(lostError));
    }
  }

  private setStatus(status: ConnectionStatus): void {
    this.current = status;
    for (const listener of this.statusListeners) listener(status);
  }
}
