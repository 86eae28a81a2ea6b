/**
 * Web mode: serves the renderer and the contract over WebSocket on 127.0.0.1 only, at two
 * addresses: a per-run name `<random>.localhost`, new at each start, and 127.0.0.1 itself as the
 * fallback (request-guard.ts). Every request passes the Host check (DNS rebinding) and, when a
 * browser sent one, the Origin check of the address it came in on; the
 * WebSocket upgrade also needs a session: the secret a browser got by signing in (sign-in.ts) or
 * the session token offered by a script, both as a subprotocol (request-guard.ts). A browser's
 * socket lives no longer than its session: it is closed when the page signs out, and the
 * heartbeat closes it once the session expired. A script's token lives until the server stops.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { SESSION_ENDED_CODE, type SessionEnd } from '../../app/contract/wire';
import type { SignInLinks } from '../core/open-panel';
import {
  type Refusal,
  WIRE_PROTOCOL,
  createRequestGuard,
  REACHABLE_PATH,
  newRunHostName,
  tokenFromProtocols,
} from './request-guard';
import { LOOPBACK, listenLoopback } from './loopback-listen';
import { createProbes } from './reachable-probe';
import { SIGN_IN_CODE_TTL_MS, createSignIn, sameToken } from './sign-in';
import { securityHeaders, sendText, serveStatic } from './static-files';
import { type WebCore, sendEvent, serveContractSocket } from './ws-bridge';

/** The path of the contract WebSocket. */
export const WS_PATH = '/ws';

/** Largest WebSocket message accepted from a page; contract inputs are small JSON. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_CLIENTS = 32;

export interface WebServerOptions {
  core: WebCore;
  /** The built renderer, e.g. out/renderer. */
  staticDir: string;
  /** 0 or absent: a free port chosen by the system. */
  port?: number;
  /** A fixed token, for tests only; by default 32 random bytes, base64url. */
  token?: string;
  /** A fixed per-run name, for tests only; by default newRunHostName(). */
  hostName?: string;
  /** How often clients are pinged; one that missed the previous ping is dropped. */
  heartbeatMs?: number;
  /** Where unexpected failures are reported (default: nowhere). */
  log?: (line: string) => void;
  /** The clock sessions expire by, for tests only. */
  now?: () => number;
}

export interface WebServer {
  /** `http://<random>.localhost:PORT/`, new at each start: carries no credential. */
  url: string;
  /** `http://127.0.0.1:PORT/`, for browsers (and scripts) that cannot reach `url`. */
  fallbackUrl: string;
  port: number;
  /** The long-lived session token, for the user's own terminal only (headless use, scripts). */
  token: string;
  /** A one-time sign-in, `/login?code=…` at both addresses, good once within a few seconds. */
  signIn(): SignInLinks;
  close(): Promise<void>;
}

/** Starts the web server; resolves once it listens. */
export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const log = opts.log ?? (() => undefined);
  // The same handlers on both loopback addresses (loopback-listen.ts says why ::1 too).
  const servers = [createServer(), createServer()] as const;
  const port = await listenLoopback(servers[0], servers[1], opts.port ?? 0);
  const guard = createRequestGuard({
    address: LOOPBACK,
    port,
    hostName: opts.hostName ?? newRunHostName(),
    token,
    isSession: (secret) => signIn.isSession(secret),
  });
  // The session each browser's socket was opened with; a script's token socket has none.
  const sessionOf = new Map<WebSocket, string>();
  const closeSockets = (ended: (secret: string) => boolean, why: SessionEnd) => {
    for (const [ws, secret] of sessionOf) if (ended(secret)) ws.close(SESSION_ENDED_CODE, why);
  };
  const signIn = createSignIn({
    originOf: (req) => guard.originOf(req),
    fallbackOrigin: guard.fallbackOrigin,
    isToken: (offered) => sameToken(offered, token),
    onSignOut: (secret) => closeSockets((s) => s === secret, 'signed-out'),
    now: opts.now,
  });
  const probes = createProbes(SIGN_IN_CODE_TTL_MS, opts.now);
  // Headers name the origin the request came in on (a refused Host gets the fallback's).
  const headersFor = (req: IncomingMessage) =>
    securityHeaders(guard.originOf(req) ?? guard.fallbackOrigin);

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Answer with the protocol name only; the token is never echoed back.
    handleProtocols: (offered) => (offered.has(WIRE_PROTOCOL) ? WIRE_PROTOCOL : false),
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const headers = headersFor(req);
    // Asked by the sign-in file (Origin `null`); readable by any page, but only a holder of the
    // one-time query gets its answer.
    const query = probeQuery(req, guard.originOf(req) === guard.origin);
    if (query !== undefined) {
      const answer = probes.spend(query);
      const open = {
        'Access-Control-Allow-Origin': '*',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      };
      sendText(res, answer === undefined ? 404 : 200, answer ?? 'Not found', {
        ...headers,
        ...open,
      });
      return;
    }
    const refusal = guard.checkHttp(req);
    if (refusal) {
      sendText(res, refusal.status, refusal.message, headers);
      return;
    }
    if (signIn.handle(req, res, headers)) return;
    serveStatic(opts.staticDir, req, res, headers).catch((error: unknown) => {
      log(`web: static file failed: ${String(error)}`);
      if (!res.headersSent) sendText(res, 500, 'Internal error', headers);
      else res.destroy();
    });
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== WS_PATH) return refuseUpgrade(socket, { status: 404, message: 'Not found' });
    const refusal = guard.checkUpgrade(req);
    if (refusal) return refuseUpgrade(socket, refusal);
    if (wss.clients.size >= MAX_CLIENTS) {
      return refuseUpgrade(socket, { status: 403, message: 'Too many clients' });
    }
    const offered = tokenFromProtocols(req.headers['sec-websocket-protocol']);
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Not the token, so the secret of a session: the socket lives as long as it does.
      if (offered !== undefined && !sameToken(offered, token)) {
        sessionOf.set(ws, offered);
        ws.on('close', () => sessionOf.delete(ws));
      }
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
      serveContractSocket(ws, opts.core, (error) => log(`web: core failed: ${String(error)}`));
    });
  };
  for (const server of servers) server.on('request', onRequest).on('upgrade', onUpgrade);

  // Browsers answer pings by themselves; a socket that stops answering is dead, not idle.
  // Each beat also closes the sockets whose session expired (or was pushed out by newer ones).
  const alive = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    closeSockets((secret) => !signIn.isSession(secret), 'expired');
    for (const ws of wss.clients) {
      if (!alive.delete(ws)) ws.terminate();
      else ws.ping();
    }
  }, opts.heartbeatMs ?? 30_000);
  heartbeat.unref();

  const unsubscribe = opts.core.subscribe((event, payload) => {
    for (const ws of wss.clients) sendEvent(ws, event, payload);
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      unsubscribe();
      clearInterval(heartbeat);
      // Not listening (no IPv6 loopback here) is closed too.
      const serversClosed = servers.map((s) => new Promise<void>((done) => s.close(() => done())));
      const clientsClosed = new Promise<void>((done) => wss.close(() => done()));
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      // A client that does not answer the close handshake promptly is cut off.
      const timer = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 1000);
      await clientsClosed;
      clearTimeout(timer);
      for (const server of servers) server.closeAllConnections();
      await Promise.all(serversClosed);
    })();
    return closing;
  };

  return {
    url: `${guard.origin}/`,
    fallbackUrl: `${guard.fallbackOrigin}/`,
    port,
    token,
    signIn: () => {
      const code = signIn.issueCode();
      const probe = probes.issue();
      return {
        url: `${guard.origin}/login?code=${code}`,
        fallbackUrl: `${guard.fallbackOrigin}/login?code=${code}`,
        probeUrl: `${guard.origin}${REACHABLE_PATH}?q=${probe.query}`,
        probeAnswer: probe.answer,
      };
    },
    close,
  };
}

/** The query of a probe of the sign-in file, sent to the per-run name; else undefined. */
function probeQuery(req: IncomingMessage, perRun: boolean): string | undefined {
  if (!perRun || req.method !== 'GET') return undefined;
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  return url.pathname === REACHABLE_PATH ? (url.searchParams.get('q') ?? '') : undefined;
}

const reasons: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  421: 'Misdirected Request',
};

function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  const body = `${refusal.message}\n`;
  socket.end(
    `HTTP/1.1 ${refusal.status} ${reasons[refusal.status] ?? 'Refused'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
