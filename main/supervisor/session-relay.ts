/**
 * The relay of one session wired to its two sides: sizes read from the line transports,
 * back-pressure passed to whichever side can pause (the server's stdout, a `warden connect`
 * socket), the session's memory budget, and faults that end the session with a reason.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { type SessionScope, inSession } from '../core/process-guard';
import { LineTransport } from '../gateway/line-transport';
import { type MessageIntercept, Relay, type ToolGate } from '../gateway/relay';

/** A client transport that can stop reading (line transports can; HTTP cannot). */
interface Pausable {
  pause(): void;
  resume(): void;
}

/** A client transport that knows how many bytes it holds (line and HTTP transports do). */
interface Measured {
  bufferedBytes(): number;
}

export interface SessionRelayDeps {
  scope: SessionScope;
  client: Transport;
  /** Who opened the session as Warden named it; never the client's own claim. */
  clientLabel: string;
  upstream: Transport;
  gate: ToolGate;
  audit: (event: AuditEventInput) => void;
  redact: (value: unknown) => unknown;
  /** The transport of the server process of the moment (a restart replaces it). */
  serverTransport: () => LineTransport | undefined;
  /** Stops (true) or restarts (false) reading the server's stdout, now and after a restart. */
  pauseServer: (paused: boolean) => void;
  onActivity: () => void;
  log: (line: string) => void;
  /** Messages Warden answers itself (roots mediation). */
  intercept?: MessageIntercept;
}

/** Builds the relay of one session; the session attaches it. */
export function createSessionRelay(d: SessionRelayDeps): Relay {
  const { scope, client } = d;
  return new Relay({
    server: scope.server,
    instance: scope.instance,
    client,
    clientLabel: d.clientLabel,
    upstream: d.upstream,
    gate: d.gate,
    audit: d.audit,
    redact: d.redact,
    onActivity: d.onActivity,
    sizeOf: (_message, from) => {
      const t = from === 'client' ? client : d.serverTransport();
      return t instanceof LineTransport ? t.lastMessageBytes : 0;
    },
    endsTurn: (from) => {
      const t = from === 'client' ? client : d.serverTransport();
      return t instanceof LineTransport && t.lastInChunk;
    },
    pauseUpstream: d.pauseServer,
    pauseClient: (paused) => {
      const pausable = client as Partial<Pausable>;
      if (paused) pausable.pause?.();
      else pausable.resume?.();
    },
    bufferedBytes: () =>
      (d.serverTransport()?.bufferedBytes() ?? 0) +
      ((client as Partial<Measured>).bufferedBytes?.() ?? 0),
    onFault: (reason, limit) => {
      if (limit) {
        d.audit({
          kind: 'limit.hit',
          outcome: 'refused',
          server: scope.server,
          instance: scope.instance,
          limit: limit.name,
          value: limit.value,
          detail: reason,
        });
      }
      scope.fault(reason);
    },
    onDropped: (what) => d.log(`[dropped] ${what}`),
    scope: (fn) => inSession(scope, fn),
    ...(d.intercept ? { intercept: d.intercept } : {}),
  });
}
