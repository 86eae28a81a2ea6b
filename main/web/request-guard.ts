/**
 * The checks every request to the web server passes before anything else: the Host header must
 * name one of the two addresses the panel is served at (defeats DNS rebinding), a browser Origin
 * must be the one of that address (defeats other web pages), and the contract needs a session:
 * the session token itself, or a live session secret a browser got by signing in (sign-in.ts).
 * Never a cookie: a browser sends those for 127.0.0.1 to every port, so another local user's
 * server could replay one.
 *
 * The two addresses: the per-run name `http://<random>.localhost:PORT`, new at each start, whose
 * origin no page ever had before (a service worker left on the port's other origins cannot
 * control it), and `http://127.0.0.1:PORT`, the fallback for browsers that do not resolve
 * `*.localhost` themselves and for scripts; the panel says so when it runs there.
 *
 * Either credential is offered in the `Sec-WebSocket-Protocol` header as
 * `warden.token.<credential>` beside the protocol name `warden.v1`: it never lands in URLs or
 * logs, and a wrong one is refused before the upgrade completes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const WIRE_PROTOCOL = 'warden.v1';
export const TOKEN_PROTOCOL_PREFIX = 'warden.token.';

/** Why a request was refused, with the HTTP status that says so. */
export interface Refusal {
  status: 401 | 403 | 404 | 421;
  message: string;
}

/**
 * Answers a one-time probe on the per-run name only (reachable-probe.ts): the sign-in file asks
 * it whether the browser reaches Warden at that name, before it falls back to 127.0.0.1.
 */
export const REACHABLE_PATH = '/reachable';

/** A fresh per-run host name, e.g. `3f…9a.localhost` (128 random bits). */
export function newRunHostName(): string {
  return `${randomBytes(16).toString('hex')}.localhost`;
}

export interface RequestGuard {
  /** The per-run origin, e.g. `http://3f…9a.localhost:4312`: the one the panel is opened at. */
  readonly origin: string;
  /** The fallback origin, `http://127.0.0.1:4312`, for browsers that cannot reach the other. */
  readonly fallbackOrigin: string;
  /** The accepted origin whose host the request's Host header names; undefined for any other. */
  originOf(req: IncomingMessage): string | undefined;
  /** Checks a plain HTTP request (static files): Host, and Origin when a browser sent one. */
  checkHttp(req: IncomingMessage): Refusal | undefined;
  /** Checks a WebSocket upgrade: Host, Origin (required) and token or session secret. */
  checkUpgrade(req: IncomingMessage): Refusal | undefined;
}

/** Builds the guard for a server bound to `address:port`, named `hostName` for this run. */
export function createRequestGuard(opts: {
  address: string;
  port: number;
  /** The per-run name (newRunHostName()); without one, only `address:port` is accepted. */
  hostName?: string;
  token: string;
  /** True when `secret` is a live session secret of a signed-in browser (web mode). */
  isSession?: (secret: string) => boolean;
}): RequestGuard {
  const fallbackOrigin = `http://${opts.address}:${opts.port}`;
  const origin = opts.hostName ? `http://${opts.hostName}:${opts.port}` : fallbackOrigin;
  const tokenDigest = digest(opts.token);

  // Host names are case-insensitive; browsers send them lowercased, scripts may not.
  const originOf = (req: IncomingMessage): string | undefined => {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined) return undefined;
    return [origin, fallbackOrigin].find((o) => o === `http://${host}`);
  };

  // The gateway has no per-run name: its clients are told 127.0.0.1:PORT in their config.
  const hostRefused: Refusal = {
    status: 421,
    message: opts.hostName
      ? 'Host must name the address that warden serve printed'
      : `Host must be ${opts.address}:${opts.port}`,
  };
  const checkHost = (req: IncomingMessage): Refusal | undefined =>
    originOf(req) !== undefined ? undefined : hostRefused;

  // A browser's Origin is the address it came in on: a page on one of the two origins never
  // speaks for the other. Neither answer names the per-run origin, which is given out only on
  // the user's terminal and in the sign-in file.
  const checkOrigin = (req: IncomingMessage, required: boolean): Refusal | undefined => {
    const got = req.headers.origin;
    if (got === undefined && !required) return undefined;
    return got !== undefined && got === originOf(req)
      ? undefined
      : { status: 403, message: 'Origin must be the address the request was sent to' };
  };

  const checkToken = (req: IncomingMessage): Refusal | undefined => {
    const offered = tokenFromProtocols(req.headers['sec-websocket-protocol']);
    if (offered !== undefined && timingSafeEqual(digest(offered), tokenDigest)) return undefined;
    if (offered !== undefined && opts.isSession?.(offered) === true) return undefined;
    return { status: 401, message: 'A session is required: sign in on /login' };
  };

  return {
    origin,
    fallbackOrigin,
    originOf,
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
