/**
 * What Warden makes of the values a peer chooses freely on the wire, request ids and methods: a
 * request is relayed only when its id comes back as it was sent and is short, and the audit log
 * keeps a method cut to a bounded length, so that neither side makes a row, or what waits for an
 * answer, as large as it likes; nor do a request's arguments or an error's text. What is passed
 * on to the other side is never cut.
 */
import { createHash } from 'node:crypto';
import { MAX_TOOL_NAME } from './pin-budget';
import type { Id } from './relay-options';

/** The longest string id relayed: what waits for an answer remembers its id whole. */
export const MAX_ID_LENGTH = 200;
/** The length a method is recorded to. */
export const MAX_METHOD_LENGTH = 100;

/** The first `max` characters of `text`, less a trailing half of a surrogate pair. */
const head = (text: string, max: number) => text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '');

/** `text` cut to `max` characters, an ellipsis saying so. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${head(text, max)}…` : text;
}

/** The most of a peer's free text (an error's message) a row keeps. */
export const MAX_RECORDED_TEXT = 4096;
/** The largest arguments or params, as JSON, a row keeps whole. */
export const MAX_RECORDED_VALUE_BYTES = 64 * 1024;
/** How much of a value too large to keep a row shows of its JSON. */
const RECORDED_HEAD = 1024;

/** A peer's free text as the audit log records it: cut, saying how much was left out. */
export function recordedText(text: string): string {
  if (text.length <= MAX_RECORDED_TEXT) return text;
  const kept = head(text, MAX_RECORDED_TEXT);
  return `${kept}… (${text.length - kept.length} more characters)`;
}

/**
 * Arguments or params (redacted already) as the audit log records them: whole up to
 * MAX_RECORDED_VALUE_BYTES of JSON; past that, their size, the SHA-256 of their JSON (to tell
 * two apart) and its first characters. `bytes`, the size of the message they came in, spares
 * measuring the common small case: a part is no larger than its message.
 */
export function recordedValue(value: unknown, bytes?: number): unknown {
  if (bytes !== undefined && bytes <= MAX_RECORDED_VALUE_BYTES) return value;
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'null';
  } catch {
    return { wardenCut: { reason: 'not JSON' } };
  }
  const size = Buffer.byteLength(json);
  if (size <= MAX_RECORDED_VALUE_BYTES) return value;
  const sha256 = createHash('sha256').update(json).digest('hex');
  return { wardenCut: { bytes: size, sha256, head: head(json, RECORDED_HEAD) } };
}

/** A method from the wire as the audit log records it. */
export function recordedMethod(method: string): string {
  return cut(method, MAX_METHOD_LENGTH);
}

/** A tool's name from the wire as the audit log records it (longer ones are never pinned). */
export function recordedTool(tool: string): string {
  return cut(tool, MAX_TOOL_NAME);
}

/** An id from the wire as a sentence of the audit log shows it. */
export function shownId(id: unknown): string {
  if (typeof id === 'string') return JSON.stringify(cut(id, MAX_ID_LENGTH));
  return typeof id === 'number' ? String(id) : `of type ${id === null ? 'null' : typeof id}`;
}

/** Why a request is refused for its id (see `idRefusal`). */
export interface IdRefusal {
  /** The id its refusal is answered under. */
  id: Id | null;
  /** The id the audit log records it under: a long one cut. */
  recorded: Id | null;
  message: string;
}

/**
 * Why a request cannot be relayed for its id, or undefined when it can. A number is read as a
 * double: past 2^53 an integer may be read as another one, and 1e400 as Infinity (written out as
 * null), so the answer would come back under an id that was never sent. An id still `waiting`
 * would make two answers one (JSON-RPC forbids reusing it).
 */
export function idRefusal(id: unknown, waiting: (id: Id) => boolean): IdRefusal | undefined {
  if (typeof id === 'string') {
    if (id.length <= MAX_ID_LENGTH) return waiting(id) ? inUse(id) : undefined;
    const message = `the request's id is longer than ${MAX_ID_LENGTH} characters`;
    return { id, recorded: cut(id, MAX_ID_LENGTH), message };
  }
  if (typeof id === 'number' && (Number.isSafeInteger(id) || fraction(id)))
    return waiting(id) ? inUse(id) : undefined;
  // The id read is not the one sent: an answer under it could answer another request of the
  // sender's (one whose id reads the same), so the refusal goes under a null id, as JSON-RPC has
  // it for an id it cannot read. The sender cannot match it, and its request ends by its own
  // timeout, as it would have anyway, instead of by the answer to something else.
  const message =
    typeof id === 'number'
      ? "the request's id is a number Warden cannot pass on as it was sent: use an integer below 2^53, a fraction or a string"
      : "the request's id is neither a string nor a number";
  return { id: null, recorded: null, message };
}

const fraction = (n: number) => Number.isFinite(n) && !Number.isInteger(n);

const inUse = (id: Id): IdRefusal => ({
  id,
  recorded: id,
  message: 'a request with this id still waits for its answer',
});
