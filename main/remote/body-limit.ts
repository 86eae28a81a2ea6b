/**
 * Reading a remote server's replies under the same message limit as a local server's lines: a
 * JSON body may not pass it, and neither may one event of a Server-Sent Events stream (a stream
 * may last long and carry many). A reply over the limit ends with a MessageTooLarge error before
 * it is buffered whole, so a hostile server cannot fill Warden's memory.
 */

/** A reply (or one SSE event) of the remote server passed the message limit. */
export class MessageTooLarge extends Error {
  readonly kind = 'message-too-large';
  constructor(readonly max: number) {
    super(`the remote server sent a message over the limit of ${max} bytes; it was refused`);
  }
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const LF = 0x0a;
const CR = 0x0d;

/** A counter of bytes since the last event boundary (a blank line) of an SSE stream. */
function eventCounter(max: number): (chunk: Uint8Array) => boolean {
  let inEvent = 0;
  let lineEmpty = true;
  return (chunk) => {
    for (const byte of chunk) {
      if (byte === CR) continue;
      if (byte === LF) {
        if (lineEmpty) inEvent = 0;
        lineEmpty = true;
        continue;
      }
      lineEmpty = false;
      if (++inEvent > max) return false;
    }
    return true;
  };
}

/** A counter of every byte of the body. */
function totalCounter(max: number): (chunk: Uint8Array) => boolean {
  let total = 0;
  return (chunk) => (total += chunk.byteLength) <= max;
}

/** `response` with its body read under `max` bytes (per event for `text/event-stream`). */
export function limitedBody(
  response: Response,
  max: number,
  onTooLarge?: (max: number) => void,
): Response {
  if (!response.body || NULL_BODY.has(response.status)) return response;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const within = type === 'text/event-stream' ? eventCounter(max) : totalCounter(max);
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (within(chunk)) controller.enqueue(chunk);
        else {
          // Told at once: the SDK reports a broken SSE stream without its cause.
          onTooLarge?.(max);
          controller.error(new MessageTooLarge(max));
        }
      },
    }),
  );
  return new Response(limited, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
