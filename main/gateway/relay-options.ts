/**
 * What a relay is given (its transports, the tool policy, the audit, its limits) and the errors it
 * answers with; the relay itself is relay.ts.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { ResultVerdict } from './call-guards';

/** A JSON-RPC request id. */
export type Id = string | number;

/** What the tool policy says about a call. */
export type CallVerdict = { allow: true } | { allow: false; message: string };

/** The tool policy, applied by the relay (see tool-gate.ts). */
export interface ToolGate {
  /**
   * The tools the client may see, given the server's list; `whole` when it is all of it (asked
   * without a cursor and answered without a next one), not one page.
   */
  filterList(tools: unknown[], whole?: boolean): Promise<unknown[]>;
  /** Whether a call may go through: at once, or (a promise) once the user approved it. */
  checkCall(tool: string, args: unknown, requestId: Id): CallVerdict | Promise<CallVerdict>;
  /** A tool call's result as the client may see it: unchanged, replaced, or withheld. */
  checkResult?(tool: string, result: unknown, requestId: Id): ResultVerdict;
  /** A notification from the server as the client may see it, or undefined to withhold it. */
  checkNotice?(message: JSONRPCMessage): JSONRPCMessage | undefined;
  /**
   * A request from the server to the client (`sampling/createMessage`, `elicitation/create`) as
   * the client may see it, or refused: the server is then answered with the reason, and the
   * client never sees it.
   */
  checkServerRequest?(message: ServerRequest): ServerRequestVerdict;
}

/** A request the server sends to the client. */
export type ServerRequest = JSONRPCMessage & { id: Id; method: string; params?: unknown };

export type ServerRequestVerdict =
  { kind: 'pass'; message: JSONRPCMessage } | { kind: 'refuse'; message: string };

/** How much one session may hold; see README "Reliability". */
export const SESSION_LIMITS = {
  /** A direction's queue asks its source to pause past this many messages… */
  highWaterMessages: 256,
  /** …or this many bytes. */
  highWaterBytes: 8 * 1024 * 1024,
  /** Bytes held for a session (both queues and transport buffers) that end it when passed. */
  memoryBudgetBytes: 64 * 1024 * 1024,
  /** Requests awaiting an answer; more are refused. */
  maxInFlight: 4096,
} as const;

export interface RelayOptions {
  server: string;
  instance: string;
  client: Transport;
  /** Who opened the session as Warden named it (`stdio`, `http`, `Warden Try it`), for the audit. */
  clientLabel?: string;
  upstream: Transport;
  gate: ToolGate;
  audit: (event: AuditEventInput) => void;
  /** Replaces secret values before anything is recorded. */
  redact: (value: unknown) => unknown;
  /** Size of the message just delivered by a transport, when it knows it. */
  sizeOf?: (message: JSONRPCMessage, from: 'client' | 'upstream') => number;
  /** Called on any traffic (for idle timeouts). */
  onActivity?: () => void;
  now?: () => number;
  /** Back-pressure: stop (true) or restart (false) reading from the server / the client. */
  pauseUpstream?: (paused: boolean) => void;
  pauseClient?: (paused: boolean) => void;
  /** Bytes the session's transports hold beyond the queues (counted against the budget). */
  bufferedBytes?: () => number;
  /** The session must end: an exception in its handling, or its memory budget was passed. */
  onFault?: (reason: string, limit?: { name: string; value: number }) => void;
  /** A message from the server was dropped (an answer to nothing in flight). */
  onDropped?: (what: string) => void;
  limits?: Partial<typeof SESSION_LIMITS>;
  /** Runs the handling of each arriving message, catching what escapes it (see process-guard.ts). */
  scope?: (fn: () => void) => void;
  /**
   * Sees the server's requests and notifications, and the client's answers and notifications,
   * before they are passed on; true when it took the message (see roots-mediator.ts).
   */
  intercept?: MessageIntercept;
  /**
   * Whether the message being delivered is the last one its transport hands over in this turn
   * (nothing more of the chunk it came in follows). An answer that is gets recorded once it has
   * been written, at the end of the turn; see `recordAnswer`.
   */
  endsTurn?: (from: 'client' | 'upstream') => boolean;
}

/** Takes some messages off the relay's path (they are neither passed on nor audited here). */
export interface MessageIntercept {
  fromServer(message: JSONRPCMessage): boolean;
  fromClient(message: JSONRPCMessage): boolean;
}

/** JSON-RPC error codes used by the relay. */
export const RELAY_ERRORS = {
  refused: -32001,
  serverGone: -32002,
  tooLarge: -32003,
  tooDeep: -32004,
  overloaded: -32005,
  /** JSON-RPC's Invalid Request: an id that cannot be relayed (see wire-values.ts). */
  invalidRequest: -32600,
  internal: -32603,
} as const;
