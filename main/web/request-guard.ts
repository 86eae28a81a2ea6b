/**
 * The checks every request to the web server passes before anything else: the Host header must
 * name the loopback address and port we bound (defeats DNS rebinding), a browser Origin must be
 * our own (defeats other web pages), and the contract needs a session: the session token itself,
 * or a live session secret a browser got by signing in (sign-in.ts). Never a cookie: a browser
 * sends those for 127.0.0.1 to every port, so another local user's server could replay one.
 *
 * Either is offered in the `Sec-WebSocket-Protocol` header as `warden.token.<credential>` beside
 * the protocol name `warden.v1`: it never lands in URLs or logs, and a wrong one is refused
 * before the upgrade completes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const WIRE_PROTOCOL = 'warden.v1';
export const TOKEN_PROTOCOL_PREFIX = 'warden.token.';

/** Why a request was refused, with the HTTP status that says so. */
export interface Refusal {
  status: 401 | 403 | 404 | 421;
  message: string;
}

export interface RequestGuard {
  /** The one Host value accepted, e.g. `127.0.0.1:4312`. */
  readonly host: string;
  /** The one Origin accepted, e.g. `http://127.0.0.1:4312`. */
  readonly origin: string;
  /** Checks a plain HTTP request (static files): Host, and Origin when a browser sent one. */
  checkHttp(req: IncomingMessage): Refusal | undefined;
  /** Checks a WebSocket upgrade: Host, Origin (required) and token or session secret. */
  checkUpgrade(req: IncomingMessage): Refusal | undefined;
}

/** Builds the guard for a server bound to `address:port` with the given session token. */
export function createRequestGuard(opts: {
  address: string;
  port: number;
  token: string;
  /** True when `secret` is a live session secret of a signed-in browser (web mode). */
  isSession?: (secret: string) => boolean;
}): RequestGuard {
  const host = `${opts.address}:${opts.port}`;
  const origin = `http://${host}`;
  const tokenDigest = digest(opts.token);

  const checkHost = (req: IncomingMessage): Refusal | undefined =>
    req.headers.host === host ? undefined : { status: 421, message: `Host must be ${host}` };

  const checkOrigin = (req: IncomingMessage, required: boolean): Refusal | undefined => {
    const got = req.headers.origin;
    if (got === undefined) {
      return required ? { status: 403, message: `Origin must be ${origin}` } : undefined;
    }
    return got === origin ? undefined : { status: 403, message: `Origin must be ${origin}` };
  };

  const checkToken = (req: IncomingMessage): Refusal | undefined => {
    const offered = tokenFromProtocols(req.headers['sec-websocket-protocol']);
    if (offered !== undefined && timingSafeEqual(digest(offered), tokenDigest)) return undefined;
    if (offered !== undefined && opts.isSession?.(offered) === true) return undefined;
    return { status: 401, message: 'A session is required: sign in on /login' };
  };

  return {
    host,
    origin,
    checkHttp: (req) => checkHost(req) ?? checkOrigin(req, false),
    checkUpgrade: (req) => checkHost(req) ?? checkOrigin(req, true) ?? checkToken(req),
  };
}

/** Finds `warden.token.<token>` among the offered subprotocols. */
export function tokenFromProtocols(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(',')) {
    const p = part.trim();
    if (p.startsWith(TOKEN_PROTOCOL_PREFIX)) return p.slice(TOKEN_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

// Comparing fixed-length digests keeps the comparison constant-time whatever length was offered.
function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
