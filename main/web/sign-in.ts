/**
 * How a browser gets a session without any credential in a URL or a process's arguments, and
 * without a cookie: a browser sends cookies for 127.0.0.1 to every port, so a web server of
 * another local user on 127.0.0.1 could receive one and replay it.
 *
 * `warden serve` opens a 0600 file that redirects to `/login?code=CODE`: a one-time code, good
 * for one exchange within a few seconds. `/login` forwards it to the page in the fragment
 * (`/#code=CODE`, never sent to a server); the page trades it, by a POST from Warden's own
 * origin to `/session`, for a session secret it keeps in its origin's storage, which no other
 * port can read, and offers it when it opens the WebSocket. Every check and link is for the
 * origin the request came in on: the per-run name, or 127.0.0.1 as the fallback. A browser opened by hand signs in on
 * `/login` with the session token `warden serve` printed on its own terminal (a form POST: the
 * token never lands in a URL), which forwards a fresh code the same way. Scripts may still offer
 * the token itself as a WebSocket subprotocol.
 *
 * The page signs out by `DELETE /session` with the secret in a header. No other origin can do
 * that for it: nothing ambient (no cookie) says who is signed in, so the request must carry the
 * secret, which only our origin can read, and a DELETE or a custom header from another origin
 * needs a preflight, which the server refuses.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  SESSION_HEADER,
  type SessionEnd,
  sessionEndSchema,
  sessionRequestSchema,
} from '../../app/contract/wire';
import { MAX_SESSIONS, sendForm } from './sign-in-page';

/** How long a one-time sign-in code may wait for its browser. */
export const SIGN_IN_CODE_TTL_MS = 30_000;
/** How long a session secret opens the WebSocket after the sign-in that gave it. */
export const SESSION_TTL_MS = 12 * 3600_000;
/** Largest sign-in form or code exchange accepted. */
const MAX_BODY_BYTES = 4096;

export interface SignIn {
  /** A fresh one-time code for `/login?code=`; it works once, within SIGN_IN_CODE_TTL_MS. */
  issueCode(): string;
  /** True when `secret` is a live session secret. */
  isSession(secret: string): boolean;
  /** Answers `/login` and `/session`; false for any other path (the caller serves it). */
  handle(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): boolean;
}

/**
 * The sign-in of the web server, checking tokens with `isToken`. `originOf` names the accepted
 * origin a request came in on (request-guard.ts): every answer speaks of that one only.
 */
export function createSignIn(opts: {
  originOf: (req: IncomingMessage) => string | undefined;
  /** The port's own origin, `http://127.0.0.1:PORT`: its sign-in page says what it lacks. */
  fallbackOrigin: string;
  isToken: (offered: string) => boolean;
  /** Told of a session the page just signed out of, so its sockets can be closed. */
  onSignOut?: (secret: string) => void;
  now?: () => number;
}): SignIn {
  const now = opts.now ?? Date.now;
  const codes = new Map<string, number>();
  const sessions = new Map<string, number>();

  const issueCode = (): string => {
    const code = randomBytes(32).toString('base64url');
    for (const [key, expires] of codes) if (expires < now()) codes.delete(key);
    codes.set(digestHex(code), now() + SIGN_IN_CODE_TTL_MS);
    return code;
  };
  const codeIsLive = (offered: string): boolean => (codes.get(digestHex(offered)) ?? 0) >= now();
  const spendCode = (offered: string): boolean => {
    const live = codeIsLive(offered);
    codes.delete(digestHex(offered));
    return live;
  };

  const newSession = (): string => {
    for (const [key, expires] of sessions) if (expires < now()) sessions.delete(key);
    const secret = randomBytes(32).toString('base64url');
    sessions.set(digestHex(secret), now() + SESSION_TTL_MS);
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    return secret;
  };
  const isSession = (secret: string): boolean => (sessions.get(digestHex(secret)) ?? 0) >= now();
  /** Ends the session of `secret` at once; true when it was live. */
  const revoke = (secret: string): boolean => {
    const live = isSession(secret);
    sessions.delete(digestHex(secret));
    return live;
  };

  /** The page at `/` takes the code from the fragment, which no server ever receives. */
  const forward = (res: ServerResponse, headers: Record<string, string>, code: string) => {
    res.writeHead(303, { ...headers, Location: `/#code=${code}` });
    res.end();
  };
  const status = (res: ServerResponse, code: number, headers: Record<string, string>) => {
    res.writeHead(code, headers);
    res.end();
  };
  /** True when a browser sent the request from the page of the origin it came in on. */
  const fromOwnPage = (req: IncomingMessage): boolean => {
    const own = opts.originOf(req);
    return own !== undefined && req.headers.origin === own;
  };
  /** The form, for the origin `req` came in on. */
  const form = (
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    headers: Record<string, string>,
    problem: string,
    ended?: SessionEnd,
  ) => {
    const origin = opts.originOf(req) ?? opts.fallbackOrigin;
    sendForm(res, code, headers, problem, { origin, fallbackOrigin: opts.fallbackOrigin }, ended);
  };

  const session = (req: IncomingMessage, res: ServerResponse, headers: Record<string, string>) => {
    const offered = req.headers[SESSION_HEADER.toLowerCase()];
    if (req.method === 'GET' || req.method === 'HEAD') {
      return status(res, typeof offered === 'string' && isSession(offered) ? 204 : 401, headers);
    }
    if (req.method === 'DELETE') {
      const ended = typeof offered === 'string' && revoke(offered);
      if (ended) opts.onSignOut?.(offered);
      return status(res, ended ? 204 : 401, headers);
    }
    if (req.method !== 'POST') return status(res, 405, { ...headers, Allow: 'GET, POST, DELETE' });
    // Only Warden's own page may trade a code: another site cannot sign a browser in.
    if (!fromOwnPage(req)) return status(res, 403, headers);
    void readBody(req).then(
      (text) => {
        const asked = sessionRequestSchema.safeParse(parseJson(text));
        if (!asked.success || !spendCode(asked.data.code)) return status(res, 401, headers);
        const body = Buffer.from(JSON.stringify({ session: newSession() }), 'utf8');
        res.writeHead(200, {
          ...headers,
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': String(body.length),
        });
        res.end(body);
      },
      () => res.destroy(),
    );
  };

  const login = (req: IncomingMessage, res: ServerResponse, headers: Record<string, string>) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    const code = query.get('code');
    if (req.method === 'GET' && code !== null) {
      // Spent only by the page's exchange; a code shown here was issued, so it is base64url.
      if (codeIsLive(code)) forward(res, headers, code);
      else form(req, res, 401, headers, 'This sign-in link was already used or has expired.');
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const ended = sessionEndSchema.safeParse(query.get('ended'));
      return form(req, res, 200, headers, '', ended.success ? ended.data : undefined);
    }
    if (req.method !== 'POST') return status(res, 405, { ...headers, Allow: 'GET, POST' });
    // A form POST must come from our own page: another site cannot sign a browser in.
    if (!fromOwnPage(req)) return status(res, 403, headers);
    void readBody(req).then(
      (text) => {
        const token = new URLSearchParams(text ?? '').get('token') ?? '';
        if (text !== undefined && token !== '' && opts.isToken(token)) {
          forward(res, headers, issueCode());
        } else form(req, res, 401, headers, 'That is not the session token of this Warden.');
      },
      () => res.destroy(),
    );
  };

  return {
    issueCode,
    isSession,
    handle: (req, res, headers) => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (path === '/session') session(req, res, headers);
      else if (path === '/login') login(req, res, headers);
      else return false;
      return true;
    },
  };
}

/** Constant-time comparison of a token with the expected one (fixed-length digests). */
export function sameToken(offered: string, expected: string): boolean {
  return timingSafeEqual(digest(offered), digest(expected));
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

function digestHex(s: string): string {
  return digest(s).toString('hex');
}

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

/** The request body as UTF-8 text; undefined when it is larger than MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
