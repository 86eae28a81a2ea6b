/**
 * Web mode: serves the renderer and the contract over WebSocket on 127.0.0.1 only. Every request
 * passes the Host check (DNS rebinding) and, when a browser sent one, the Origin check; the
 * WebSocket upgrade also needs a session: the secret a browser got by signing in (sign-in.ts) or
 * the session token offered by a script, both as a subprotocol (request-guard.ts). A browser's
 * socket lives no longer than its session: it is closed when the page signs out, and the
 * heartbeat closes it once the session expired. A script's token lives until the server stops.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { SESSION_ENDED_CODE, type SessionEnd } from '../../app/contract/wire';
import {
  type Refusal,
  WIRE_PROTOCOL,
  createRequestGuard,
  tokenFromProtocols,
} from './request-guard';
import { createSignIn, sameToken } from './sign-in';
import { securityHeaders, sendText, serveStatic } from './static-files';
import { type WebCore, sendEvent, serveContractSocket } from './ws-bridge';

export const LOOPBACK = '127.0.0.1';
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
  /** How often clients are pinged; one that missed the previous ping is dropped. */
  heartbeatMs?: number;
  /** Where unexpected failures are reported (default: nowhere). */
  log?: (line: string) => void;
  /** The clock sessions expire by, for tests only. */
  now?: () => number;
}

export interface WebServer {
  /** `http://127.0.0.1:PORT/`: carries no credential. */
  url: string;
  port: number;
  /** The long-lived session token, for the user's own terminal only (headless use, scripts). */
  token: string;
  /** A one-time sign-in URL, `/login?code=…`, good once within a few seconds. */
  signInUrl(): string;
  close(): Promise<void>;
}

/** Starts the web server; resolves once it listens. */
export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const log = opts.log ?? (() => undefined);
  const server = createServer();
  await listen(server, opts.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${LOOPBACK}:${port}`;
  // The session each browser's socket was opened with; a script's token socket has none.
  const sessionOf = new Map<WebSocket, string>();
  const closeSockets = (ended: (secret: string) => boolean, why: SessionEnd) => {
    for (const [ws, secret] of sessionOf) if (ended(secret)) ws.close(SESSION_ENDED_CODE, why);
  };
  const signIn = createSignIn({
    origin,
    isToken: (offered) => sameToken(offered, token),
    onSignOut: (secret) => closeSockets((s) => s === secret, 'signed-out'),
    now: opts.now,
  });
  const guard = createRequestGuard({
    address: LOOPBACK,
    port,
    token,
    isSession: (secret) => signIn.isSession(secret),
  });
  const headers = securityHeaders(guard.origin);

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Answer with the protocol name only; the token is never echoed back.
    handleProtocols: (offered) => (offered.has(WIRE_PROTOCOL) ? WIRE_PROTOCOL : false),
  });

  server.on('request', (req, res) => {
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
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
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
  });

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
      const serverClosed = new Promise<void>((done) => server.close(() => done()));
      const clientsClosed = new Promise<void>((done) => wss.close(() => done()));
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      // A client that does not answer the close handshake promptly is cut off.
      const timer = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 1000);
      await clientsClosed;
      clearTimeout(timer);
      server.closeAllConnections();
      await serverClosed;
    })();
    return closing;
  };

  return {
    url: `${guard.origin}/`,
    port,
    token,
    signInUrl: () => `${guard.origin}/login?code=${signIn.issueCode()}`,
    close,
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen({ host: LOOPBACK, port, exclusive: true }, () => {
      server.off('error', fail);
      done();
    });
  });
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
