/**
 * The proxy's own reading of a request head (request line and header fields), strict where a
 * lenient reading could let two parties see two different requests (request smuggling): every
 * first head on a connection is read here, and anything ambiguous is refused rather than guessed
 * at — both Content-Length and Transfer-Encoding, a repeated or non-numeric Content-Length, a
 * coding other than `chunked`, obs-fold, a bare CR or LF, whitespace before a colon, a name or
 * value with characters the grammar does not allow (RFC 9112 §2–§6, RFC 9110 §5), userinfo in the
 * URL, a repeated or malformed Host (the Host passed on is always the URL's), a target that is
 * not absolute-form (authority-form for CONNECT), HTTP/0.9 and a head over `MAX_REQUEST_HEAD`.
 */

/** Largest request head taken; a longer one is refused. */
export const MAX_REQUEST_HEAD = 64 * 1024;

/** A request head the proxy accepted. */
export interface RequestHead {
  method: string;
  version: '1.0' | '1.1';
  /** The request target as sent. */
  target: string;
  /** Header fields as sent: name, value, name, value… (values without surrounding whitespace). */
  headers: string[];
  /** Body bytes that follow the head (Content-Length; 0 without one); unused when `chunked`. */
  length: number;
  chunked: boolean;
  /** `Expect: 100-continue` was asked. */
  expectContinue: boolean;
  proxyAuthorization: string | undefined;
  /** Whether a Host header was sent (HTTP/1.0 may omit it). */
  hasHost: boolean;
  /** The absolute URL, for every method but CONNECT. */
  url: URL | undefined;
}

export type HeadRead =
  | { kind: 'incomplete' }
  | { kind: 'bad'; status: number; statusText: string; why: string }
  /** `size`: bytes of the head, its final empty line included. */
  | { kind: 'head'; head: RequestHead; size: number };

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) ([\\x21-\\x7e]+) HTTP/(1\\.[01])$`);
const HEADER_LINE = new RegExp(`^(${TOKEN}):[\\t ]*([\\t\\x20-\\x7e\\x80-\\xff]*?)[\\t ]*$`);
const SPACE_BEFORE_COLON = new RegExp(`^${TOKEN}[\\t ]+:`);
/** Scheme, authority and the rest; no fragment, no backslash (URL reads it as a slash). */
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\\]*)([/?][^#\\]*)?$/;
/** A host (name or address, no percent-encoding) and an optional port. */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?$/;
const LENGTH = /^[0-9]{1,15}$/;

const bad = (why: string, status = 400, statusText = 'Bad Request'): HeadRead => ({
  kind: 'bad',
  status,
  statusText,
  why,
});

const CR = 13;
const LF = 10;

/**
 * Whether `bytes[from, to)` holds a CR not followed by LF or an LF not preceded by CR (a CR at
 * `to - 1` is judged once the byte after it is there).
 */
function bareLineEnd(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = bytes[i];
    if (b === LF && (i === 0 || bytes[i - 1] !== CR)) return true;
    if (b === CR && i + 1 < to && bytes[i + 1] !== LF) return true;
  }
  return false;
}

/**
 * Reads the request head at the start of `bytes`: `incomplete` until its empty line has arrived
 * (unless what has arrived is already wrong), `bad` with the status to answer, or the head.
 * `scanned`: how many bytes an earlier call saw incomplete, so that a head arriving a byte at a
 * time is scanned once, not once per byte.
 */
export function readRequestHead(bytes: Buffer, scanned = 0): HeadRead {
  const end = bytes.indexOf('\r\n\r\n', Math.max(0, scanned - 3));
  if (bareLineEnd(bytes, Math.max(0, scanned - 1), end < 0 ? bytes.length : end + 1))
    return bad('a bare CR or LF');
  if ((end < 0 ? bytes.length : end + 4) > MAX_REQUEST_HEAD)
    return bad('a request head over 64 KiB', 431, 'Request Header Fields Too Large');
  if (end < 0) return { kind: 'incomplete' };
  const text = bytes.toString('latin1', 0, end);
  const lines = text.split('\r\n');
  const line = REQUEST_LINE.exec(lines[0]!);
  if (!line) {
    if (/^[A-Za-z]+ [\x21-\x7e]+$/.test(lines[0]!)) return bad('an HTTP/0.9 request');
    return bad('a malformed request line');
  }
  const [, method, target, version] = line as unknown as [string, string, string, '1.0' | '1.1'];
  const headers: string[] = [];
  for (const field of lines.slice(1)) {
    if (/^[\t ]/.test(field)) return bad('a folded header line (obs-fold)');
    if (SPACE_BEFORE_COLON.test(field)) return bad('whitespace before a header colon');
    const m = HEADER_LINE.exec(field);
    if (!m) return bad('a malformed header line');
    headers.push(m[1]!, m[2]!);
  }
  const framing = readFields(method, version, headers);
  if (typeof framing === 'string') return bad(framing);
  if (framing.expect !== undefined && framing.expect.toLowerCase() !== '100-continue')
    return bad(`an expectation this proxy cannot meet`, 417, 'Expectation Failed');
  let url: URL | undefined;
  if (method === 'CONNECT') {
    if (framing.chunked || framing.length > 0) return bad('a CONNECT request with a body');
  } else {
    const read = readTarget(target, framing.host);
    if (typeof read === 'string') return bad(read);
    url = read;
  }
  const head: RequestHead = {
    method,
    version,
    target,
    headers,
    length: framing.length,
    chunked: framing.chunked,
    expectContinue: framing.expect !== undefined,
    proxyAuthorization: framing.proxyAuthorization,
    hasHost: framing.host !== undefined,
    url,
  };
  return { kind: 'head', head, size: end + 4 };
}

interface Fields {
  length: number;
  chunked: boolean;
  host: string | undefined;
  expect: string | undefined;
  proxyAuthorization: string | undefined;
}

/** The fields that decide framing and routing, each at most once; a string says what is wrong. */
function readFields(method: string, version: string, headers: readonly string[]): Fields | string {
  const seen = new Map<string, string>();
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    if (!ONCE.has(name)) continue;
    if (seen.has(name)) return `a repeated ${headers[i]} header`;
    seen.set(name, headers[i + 1]!);
  }
  const length = seen.get('content-length');
  const coding = seen.get('transfer-encoding');
  const host = seen.get('host');
  if (length !== undefined && coding !== undefined)
    return 'both Content-Length and Transfer-Encoding';
  if (length !== undefined && !LENGTH.test(length)) return 'a Content-Length that is not a number';
  if (coding !== undefined && (coding.toLowerCase() !== 'chunked' || version === '1.0'))
    return 'a Transfer-Encoding other than chunked (HTTP/1.1)';
  if (host === undefined && version === '1.1' && method !== 'CONNECT')
    return 'an HTTP/1.1 request without Host';
  return {
    length: length === undefined ? 0 : Number(length),
    chunked: coding !== undefined,
    host,
    expect: seen.get('expect'),
    proxyAuthorization: seen.get('proxy-authorization'),
  };
}

/** Fields a request may carry once only. */
const ONCE = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'expect',
  'proxy-authorization',
]);

/**
 * The absolute `http://` or `https://` URL of a request, its Host header (where sent) checked for
 * form only: the Host passed on is always the URL's own; a string says what is wrong.
 */
export function readTarget(target: string, host: string | undefined): URL | string {
  const m = ABSOLUTE.exec(target);
  if (!m) return 'not a proxy request (the target is not an absolute http:// or https:// URL)';
  const scheme = m[1]!.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return `not a proxy request (scheme ${scheme})`;
  if (m[2]!.includes('@')) return 'userinfo in the URL';
  if (!AUTHORITY.test(m[2]!)) return 'a malformed host in the URL';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'a malformed URL';
  }
  if (host !== undefined && !AUTHORITY.test(host)) return 'a malformed Host header';
  return url;
}
