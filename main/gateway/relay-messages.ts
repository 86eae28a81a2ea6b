/**
 * What the relay reads off a JSON-RPC message as it passes: whether it is a request or an answer,
 * its size when its transport did not measure it, and the summary of a result the audit log
 * keeps. Plain functions of a message, apart from the relay's state.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Id } from './relay-options';

/** A message on its way through one of the relay's two pipelines. */
export interface Queued {
  message: JSONRPCMessage;
  bytes: number;
  /** Written by Warden (an error it answers with): goes out as it is. */
  own?: true;
  /** A call whose answer was refused unread: failed in the answer's place. */
  fail?: { code: number; message: string };
}

/** A request sent on to the server and not answered yet. */
export interface InFlight {
  method: string;
  tool: string | undefined;
  startedAt: number;
}

/** A request (it has an id, so it is answered), as against a notification or an answer. */
export function isRequest(
  m: JSONRPCMessage,
): m is JSONRPCMessage & { id: Id; method: string; params?: Record<string, unknown> } {
  return 'method' in m && 'id' in m && m.id !== undefined && m.id !== null;
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
