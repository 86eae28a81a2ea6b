/**
 * How a browser gets a session without any credential in a URL or a process's arguments.
 *
 * `warden serve` opens a 0600 file that redirects to `/login?code=CODE`: a one-time code, good
 * for one exchange within a few seconds, traded for an HttpOnly, SameSite=Strict session cookie.
 * Whatever stays in the browser's argv (the file's path) is useless to another user, and the
 * code is spent before anyone could read it elsewhere. A browser opened by hand signs in on
 * `/login` with the session token `warden serve` printed on its own terminal (a form POST: the
 * token never lands in a URL). Scripts may still offer the token as a WebSocket subprotocol.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a one-time sign-in code may wait for its browser. */
export const SIGN_IN_CODE_TTL_MS = 30_000;
/** Sessions kept at most; the oldest goes first. */
const MAX_SESSIONS = 64;
/** Largest sign-in form accepted. */
const MAX_FORM_BYTES = 4096;

export interface SignIn {
  /** The cookie's name, one per port so that two servers do not clobber each other. */
  readonly cookieName: string;
  /** A fresh one-time code for `/login?code=`; it works once, within SIGN_IN_CODE_TTL_MS. */
  issueCode(): string;
  /** True when the request carries a live session cookie. */
  hasSession(req: IncomingMessage): boolean;
  /** Answers `/login` and `/session`; false for any other path (the caller serves it). */
  handle(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): boolean;
}

/** The sign-in of one web server on `port`, checking tokens with `isToken`. */
export function createSignIn(opts: {
  port: number;
  origin: string;
  isToken: (offered: string) => boolean;
  now?: () => number;
}): SignIn {
  const now = opts.now ?? Date.now;
  const cookieName = `warden-session-${opts.port}`;
  const codes = new Map<string, number>();
  const sessions = new Set<string>();

  const newSession = (): string => {
    const id = randomBytes(32).toString('base64url');
    sessions.add(digestHex(id));
    while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.values().next().value!);
    return id;
  };
  const cookie = (id: string) =>
    `${cookieName}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${12 * 3600}`;

  const useCode = (offered: string | null): boolean => {
    if (offered === null) return false;
    const key = digestHex(offered);
    const expires = codes.get(key);
    codes.delete(key);
    return expires !== undefined && now() <= expires;
  };

  const hasSession = (req: IncomingMessage): boolean => {
    const id = cookieValue(req.headers.cookie, cookieName);
    return id !== undefined && sessions.has(digestHex(id));
  };

  const signedIn = (res: ServerResponse, headers: Record<string, string>) => {
    res.writeHead(303, { ...headers, 'Set-Cookie': cookie(newSession()), Location: '/' });
    res.end();
  };

  const handle = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
  ): boolean => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/session') {
      res.writeHead(hasSession(req) ? 204 : 401, headers);
      res.end();
      return true;
    }
    if (url.pathname !== '/login') return false;
    if (req.method === 'GET' && url.searchParams.has('code')) {
      if (useCode(url.searchParams.get('code'))) signedIn(res, headers);
      else sendForm(res, 401, headers, 'This sign-in link was already used or has expired.', opts);
      return true;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      sendForm(res, 200, headers, undefined, opts);
      return true;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { ...headers, Allow: 'GET, POST' });
      res.end();
      return true;
    }
    // A form POST must come from our own page: another site cannot sign a browser in.
    if (req.headers.origin !== opts.origin) {
      res.writeHead(403, headers);
      res.end();
      return true;
    }
    void readForm(req).then((form) => {
      const token = form?.get('token') ?? '';
      if (token !== '' && opts.isToken(token)) signedIn(res, headers);
      else sendForm(res, 401, headers, 'That is not the session token of this Warden.', opts);
    });
    return true;
  };

  return {
    cookieName,
    issueCode: () => {
      const code = randomBytes(32).toString('base64url');
      for (const [key, expires] of codes) if (expires < now()) codes.delete(key);
      codes.set(digestHex(code), now() + SIGN_IN_CODE_TTL_MS);
      return code;
    },
    hasSession,
    handle,
  };
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
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

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendForm(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  problem: string | undefined,
  opts: { origin: string },
): void {
  const body = Buffer.from(
    '<!doctype html><html lang="en"><meta charset="utf-8"><title>Sign in to Warden</title>' +
      '<h1>Sign in to Warden</h1>' +
      (problem ? `<p role="alert">${problem}</p>` : '') +
      '<p>Paste the session token that <code>warden serve</code> printed in its terminal.</p>' +
      `<form method="post" action="${opts.origin}/login">` +
      '<label>Session token <input name="token" type="password" autocomplete="off" required></label> ' +
      '<button type="submit">Sign in</button></form></html>',
    'utf8',
  );
  res.writeHead(status, {
    ...headers,
    // The one page that posts a form, to itself only.
    'Content-Security-Policy':
      "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    // A form POST sends its Origin (checked above) only under a policy that allows it.
    'Referrer-Policy': 'same-origin',
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
  });
  res.end(body);
}
