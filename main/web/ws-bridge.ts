/**
 * Carries the contract over one WebSocket: requests in (wire.ts shapes), replies and core events
 * out. The socket is untrusted even after the token check, so every message is parsed and
 * validated here and the core validates each input again with the contract's schemas.
 */
import type { WebSocket } from 'ws';
import { type EventName, isOperationName, wireRequestSchema } from '../../app/contract/index';
import type { Reply } from '../../app/contract/reply';

/** The part of the core the web server needs; `main/core.ts`'s Core satisfies it. */
export interface WebCore {
  handle(op: string, input: unknown): Promise<Reply>;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
}

/** A client that lets this much unsent data pile up is dropped rather than buffered forever. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Serves contract requests arriving on `ws` until it closes. */
export function serveContractSocket(
  ws: WebSocket,
  core: WebCore,
  onError: (error: unknown) => void,
): void {
  // Protocol errors (oversized or malformed frames) close the socket; they must not crash the core.
  ws.on('error', () => ws.terminate());
  ws.on('message', (data, isBinary) => {
    // A socket being closed (its session ended, say) is answered no more.
    if (ws.readyState !== ws.OPEN) return;
    if (isBinary) {
      ws.close(1003, 'text frames only');
      return;
    }
    void answer(ws, core, rawToString(data), onError);
  });
}

/** Sends an event to one client, dropping a client that does not keep up. */
export function sendEvent(ws: WebSocket, event: EventName, payload: unknown): void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
    ws.close(1013, 'client too slow');
    return;
  }
  ws.send(JSON.stringify({ event, payload }));
}

async function answer(
  ws: WebSocket,
  core: WebCore,
  text: string,
  onError: (error: unknown) => void,
): Promise<void> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    ws.close(1007, 'invalid JSON');
    return;
  }
  const parsed = wireRequestSchema.safeParse(message);
  if (!parsed.success) {
    ws.close(1007, 'invalid request');
    return;
  }
  const { id, op, input } = parsed.data;
  let body: Reply;
  if (!isOperationName(op)) {
    body = {
      ok: false,
      error: { kind: 'invalid-input', message: `Unknown operation: ${op.slice(0, 64)}` },
    };
  } else {
    try {
      body = await core.handle(op, input);
    } catch (error) {
      onError(error);
      body = {
        ok: false,
        error: {
          kind: 'internal',
          message: 'The core failed to answer this request',
          remedy: 'See the output of `warden serve` for details, then retry.',
        },
      };
    }
  }
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, ...body }));
}

function rawToString(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
