/**
 * What the relay reads off a JSON-RPC message as it passes: whether it is a request or an answer,
 * its size when its transport did not measure it, the summary of a result the audit log keeps,
 * and the records of requests and of Warden's own errors. Plain functions, apart from the relay.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { type Id, RELAY_ERRORS, type ServerRequestVerdict } from './relay-options';
import {
  type IdRefusal,
  recordedMethod,
  recordedText,
  recordedTool,
  recordedValue,
  shownId,
} from './wire-values';

/** A message on its way through one of the relay's two pipelines. */
export interface Queued {
  message: JSONRPCMessage;
  bytes: number;
  /** Written by Warden (an error it answers with): goes out as it is. */
  own?: true;
  /** A call whose answer was refused unread: failed in the answer's place. */
  fail?: { code: number; message: string };
}

/** A request of the client not answered yet. */
export interface InFlight {
  method: string;
  tool: string | undefined;
  startedAt: number;
  /**
   * Whether it was sent on to the server: a call held for its verdict (an approval) was not, and
   * the server can answer only what it was sent, whatever id it guesses.
   */
  forwarded: boolean;
  /** A `tools/list` asked without a cursor: its answer, with no next cursor, is the whole list. */
  fromStart?: boolean;
}

/** A request of the client as it comes in: not sent on to the server yet. */
export function startedCall(method: string, tool: string | undefined, startedAt: number): InFlight {
  return { method: recordedMethod(method), tool, startedAt, forwarded: false };
}

/** A request (it has an id, so it is answered), as against a notification or an answer. */
export function isRequest(
  m: JSONRPCMessage,
): m is JSONRPCMessage & { id: Id; method: string; params?: Record<string, unknown> } {
  return 'method' in m && 'id' in m && m.id !== undefined && m.id !== null;
}

/**
 * A request whose id is null. JSON-RPC makes it a request all the same (only a message without an
 * id is a notification), so a peer may answer it: it is refused as one, never passed on unchecked.
 */
export function isNullIdRequest(
  m: JSONRPCMessage,
): m is JSONRPCMessage & { id: null; method: string } {
  return 'method' in m && 'id' in m && (m as { id: unknown }).id === null;
}

/** An answer to a request. */
export function isResponse(m: JSONRPCMessage): m is JSONRPCMessage & { id: Id } {
  return !('method' in m) && 'id' in m;
}

/** Size of a message that came without one (a transport that does not measure). */
export function estimateBytes(message: JSONRPCMessage): number {
  try {
    return JSON.stringify(message).length;
  } catch {
    return 0;
  }
}

/** What the audit log says of a result: how many tools or content blocks, and a tool error. */
export function summarize(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { content?: unknown[]; tools?: unknown[]; isError?: boolean };
  if (Array.isArray(r.tools)) return `${r.tools.length} tools`;
  if (Array.isArray(r.content))
    return `${r.content.length} content block${r.content.length === 1 ? '' : 's'}${r.isError ? ' (tool error)' : ''}`;
  return undefined;
}

/** The record of Warden's own error answer to a request (`call`, when it was in flight). */
export function errorRecord(
  at: { server: string; instance: string },
  id: Id,
  call: InFlight | undefined,
  error: { code: number; message: string },
  outcome: 'refused' | 'error',
  durationMs: number,
): AuditEventInput {
  return {
    kind: 'mcp.response',
    outcome,
    server: at.server,
    instance: at.instance,
    requestId: id,
    method: call?.method ?? 'unknown',
    ...(call?.tool !== undefined ? { tool: recordedTool(call.tool) } : {}),
    error,
    durationMs,
    sizeBytes: 0,
  };
}

/**
 * The record of the server's answer `message` to `call`, as the client gets it (`out`: an error
 * the gate put in its place is recorded as the answer).
 */
export function responseRecord(
  at: { server: string; instance: string; redact: (value: unknown) => unknown },
  message: JSONRPCMessage & { id: Id },
  call: InFlight,
  out: JSONRPCMessage,
  bytes: number,
  now: number,
): AuditEventInput {
  const result =
    'result' in message ? (message.result as Record<string, unknown> | undefined) : undefined;
  const error = 'error' in out ? (out.error as { code: number; message: string }) : undefined;
  const summary = summarize(result);
  return {
    kind: 'mcp.response',
    outcome: error ? 'error' : 'ok',
    server: at.server,
    instance: at.instance,
    requestId: message.id,
    method: call.method,
    ...(call.tool !== undefined ? { tool: recordedTool(call.tool) } : {}),
    ...(error
      ? { error: { code: error.code, message: recordedText(String(at.redact(error.message))) } }
      : {}),
    ...(summary ? { resultSummary: summary } : {}),
    durationMs: Math.max(0, now - call.startedAt),
    sizeBytes: bytes,
  };
}

/** What the instance's log notes of an answer to a call the server was not sent yet. */
export function unsent(id: Id): string {
  return `an answer with id ${JSON.stringify(id)} to a call not sent to the server yet`;
}

/** What the relay says of a client's answer to no request of the server's. */
export function answerToNothing(id: unknown): string {
  return `the client's answer with id ${shownId(id)} to no request of the server's`;
}

/**
 * Calls the client cancelled after they were sent. The id of one stays taken until the server's
 * late answer to it comes, if it ever does, so that the answer cannot be taken for that of a new
 * call under the same id; past `max`, the oldest is forgotten.
 */
export class CancelledCalls {
  private readonly ids = new Set<Id>();

  constructor(
    private readonly inFlight: Map<Id, InFlight>,
    private readonly max: number,
  ) {}

  /** The client cancelled call `id`: it no longer waits, and its answer goes nowhere. */
  cancel(id: Id): void {
    const call = this.inFlight.get(id);
    if (!call) return;
    this.inFlight.delete(id);
    if (!call.forwarded) return;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: Id): boolean {
    return this.ids.has(id);
  }

  /** The server's answer to `id` came: the id is free again. */
  delete(id: Id): void {
    this.ids.delete(id);
  }
}

/** The record of a request of the client; a tool call's arguments are recorded redacted. */
export function requestRecord(
  at: {
    server: string;
    instance: string;
    redact: (value: unknown) => unknown;
    clientLabel?: string;
  },
  message: JSONRPCMessage & { id: Id; method: string },
  tool: string | undefined,
  args: unknown,
  bytes: number,
): AuditEventInput {
  return {
    kind: 'mcp.request',
    outcome: 'info',
    server: at.server,
    instance: at.instance,
    requestId: message.id,
    method: recordedMethod(message.method),
    ...(tool !== undefined
      ? { tool: recordedTool(tool), args: recordedValue(at.redact(args ?? {}), bytes) }
      : {}),
    sizeBytes: bytes,
    ...(at.clientLabel ? { client: at.clientLabel } : {}),
  };
}

/**
 * The record of a request the server sent to the client: its params as the client was shown them
 * (a credential in them already redacted by the gate), or none and the reason when it was refused;
 * under `requestId` when it was refused for an id that cannot be recorded as it was sent.
 */
export function serverRequestRecord(
  at: { server: string; instance: string; redact: (value: unknown) => unknown },
  message: JSONRPCMessage & { id: Id | null; method: string },
  bytes: number,
  verdict: ServerRequestVerdict,
  requestId: Id | null = message.id,
): AuditEventInput {
  const shown =
    verdict.kind === 'pass' ? (verdict.message as { params?: unknown }).params : undefined;
  return {
    kind: 'mcp.server-request',
    outcome: verdict.kind === 'pass' ? 'info' : 'refused',
    server: at.server,
    instance: at.instance,
    requestId,
    method: recordedMethod(message.method),
    ...(shown !== undefined ? { params: recordedValue(at.redact(shown), bytes) } : {}),
    sizeBytes: bytes,
    ...(verdict.kind === 'refuse' ? { reason: verdict.message } : {}),
  };
}

/** Warden's answer to a request refused for its id (JSON-RPC's Invalid Request). */
export function idError(refusal: IdRefusal): JSONRPCMessage {
  const error = { code: RELAY_ERRORS.invalidRequest, message: `Warden: ${refusal.message}` };
  // The SDK's type has no null id, which JSON-RPC gives an answer to an id it cannot read.
  return { jsonrpc: '2.0', id: refusal.id, error } as unknown as JSONRPCMessage;
}

/**
 * The record of a request of the client refused for its id. Not an `mcp.response`: the id is
 * unreadable or that of another request, whose row would be paired with this one.
 */
export function idRefusedRecord(
  at: { server: string; instance: string },
  message: JSONRPCMessage & { id: unknown; method: string },
  refusal: IdRefusal,
): AuditEventInput {
  return {
    kind: 'limit.hit',
    outcome: 'refused',
    server: at.server,
    instance: at.instance,
    limit: 'requestId',
    detail: `the client's ${recordedMethod(message.method)} request with id ${shownId(message.id)} was refused: ${refusal.message}`,
  };
}
