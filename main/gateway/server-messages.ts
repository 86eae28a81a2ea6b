/**
 * What becomes of a message of the server's that answers nothing, a request to the client
 * (`sampling/createMessage`, `elicitation/create`, `roots/list`) or a notification: passed on to
 * the client as the gate lets it, taken by the roots mediator, or refused back to the server with
 * the reason. Every request the relay handles is recorded (`mcp.server-request`), refused or not.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ClientAnswers } from './client-answers';
import { idError, isNullIdRequest, isRequest, serverRequestRecord } from './relay-messages';
import { RELAY_ERRORS, type RelayOptions } from './relay-options';
import { idRefusal } from './wire-values';

/** Where a message goes, as it is to be sent there; undefined when it goes nowhere. */
export type Routed = { to: 'client' | 'upstream'; message: JSONRPCMessage } | undefined;

/** Routes the server's request or notification `message` of `bytes`, come at `now`. */
export function routeServerMessage(
  o: RelayOptions,
  asks: ClientAnswers,
  message: JSONRPCMessage,
  bytes: number,
  now: number,
): Routed {
  // Before the roots mediator too, which answers under the id and records it.
  const refusal =
    (isRequest(message) || isNullIdRequest(message)) &&
    idRefusal(message.id, (id) => asks.isWaiting(id));
  if (refusal) {
    const verdict = { kind: 'refuse' as const, message: refusal.message };
    o.audit(serverRequestRecord(o, message, bytes, verdict, refusal.recorded));
    return { to: 'upstream', message: idError(refusal) };
  }
  if (o.intercept?.fromServer(message)) return undefined;
  if (!isRequest(message)) {
    const shown = o.gate.checkNotice ? o.gate.checkNotice(message) : message;
    return shown && { to: 'client', message: shown };
  }
  const verdict = o.gate.checkServerRequest?.(message) ?? { kind: 'pass', message };
  o.audit(serverRequestRecord(o, message, bytes, verdict));
  if (verdict.kind === 'pass') {
    asks.asked(message.id, message.method, now);
    return { to: 'client', message: verdict.message };
  }
  const error = { code: RELAY_ERRORS.refused, message: `Warden: ${verdict.message}` };
  return { to: 'upstream', message: { jsonrpc: '2.0', id: message.id, error } };
}
