/**
 * The end of a browser sign-in: a listener on 127.0.0.1 at a random port that waits for the one
 * redirect the authorization server sends back. It answers only `GET /callback` carrying the
 * `state` this sign-in drew (compared in constant time); anything else is refused and the wait
 * goes on, so that a web page guessing at loopback ports can neither finish nor spoil a sign-in.
 * After the expected callback, or the deadline, it closes.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthFlowError } from './oauth-errors';

export interface LoopbackRedirect {
  /** The redirect URI to register and to send in the authorization request. */
  readonly url: string;
  /** The `state` the callback must carry. */
  readonly state: string;
  /** The authorization code, once the expected callback arrived. */
  readonly code: Promise<string>;
  /** Stops listening (at once; idempotent). */
  close(): Promise<void>;
}

const CALLBACK_PATH = '/callback';
const MAX_PARAM = 4096;

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'close',
  });
  res.end(text);
}

function sameState(got: string | null, expected: string): boolean {
  if (got === null) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Starts listening; the caller must `close()` it whatever happens. */
export async function listenForRedirect(
  options: { timeoutMs?: number } = {},
): Promise<LoopbackRedirect> {
  const state = randomBytes(32).toString('base64url');
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The caller may be busy elsewhere when the callback or the deadline comes.
  code.catch(() => undefined);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      answer(res, 404, 'Not found.');
      return;
    }
    if (!sameState(url.searchParams.get('state'), state)) {
      answer(res, 400, 'This sign-in link does not belong to the sign-in in progress.');
      return;
    }
    const error = url.searchParams.get('error');
    const granted = url.searchParams.get('code');
    if (error !== null || granted === null || granted.length > MAX_PARAM) {
      answer(res, 400, 'Sign-in was not completed. You may close this window.');
      const description = url.searchParams.get('error_description') ?? '';
      finish(
        new OAuthFlowError({
          kind: 'authorization-denied',
          message: `the authorization server refused the sign-in: ${(error ?? 'no code').slice(0, 200)}${description ? ` (${description.slice(0, 500)})` : ''}`,
          remedy: 'sign in again and approve the access in the browser',
        }),
      );
      return;
    }
    answer(res, 200, 'Signed in to MCP Warden. You may close this window.');
    finish(granted);
  });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    clearTimeout(timer);
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return closed;
  };
  const timer = setTimeout(
    () =>
      finish(
        new OAuthFlowError({
          kind: 'timeout',
          message: 'nobody completed the sign-in in the browser in time',
          remedy: 'sign in again and finish in the browser that opens',
        }),
      ),
    options.timeoutMs ?? 5 * 60_000,
  );
  function finish(outcome: string | OAuthFlowError): void {
    if (typeof outcome === 'string') settle?.resolve(outcome);
    else settle?.reject(outcome);
    settle = undefined;
    // Stop accepting connections now; the answer already written still goes out.
    void close();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${CALLBACK_PATH}`, state, code, close };
}
