/**
 * The egress proxy of one instance: one port that speaks HTTP (CONNECT and absolute-form
 * `http://` / `https://` requests) and SOCKS5, told apart by the first byte. It runs in Warden;
 * on Linux it serves the listening socket the sandbox init made on the sandbox's own loopback,
 * so only the server can reach it. Each connection's destination goes to the broker (`Dial`),
 * which decides and connects; the proxy then relays. Where the port is on the host's own
 * loopback (macOS), `authorize` makes it ask for the instance's proxy credentials (Basic, or
 * SOCKS5 username/password) before anything is opened.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { type Dial, httpError, httpRefusal, refusalStatus } from './refusal';
import { serveSocks5 } from './socks5';
import { HOP_BY_HOP, cleanHeaders, relayAbsoluteForm, upstreamHeaders } from './absolute-form';
import { HEAD_TIMEOUT_MS, readHead } from './head-reader';
import { isPlainRequest, relayPlainRequest } from './plain-request';
import { type RequestHead, readTarget } from './request-head';
import { relay } from './upstream';
import { extraCaContext, trustingAlso } from './extra-ca';
import { ReadBufferBudget, withReadLoop } from './read-loop';

/** `host:port` or `[v6]:port` from a CONNECT line. */
export function parseAuthority(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[3]);
  return port >= 1 && port <= 65535 ? { host: (m[1] ?? m[2])!, port } : undefined;
}

/** Checks a proxy username and password; only set where others could reach the port. */
export type ProxyAuthorize = (user: string, password: string) => boolean;

export interface ProxyOptions {
  authorize?: ProxyAuthorize;
  /**
   * Certificates (PEM) trusted beside Node's roots when Warden opens TLS for an absolute-form
   * `https://` request (a test's); by default, NODE_EXTRA_CA_CERTS's (main/egress/extra-ca.ts).
   */
  extraCa?: readonly string[];
  /** How long a client has for its first request head (`HEAD_TIMEOUT_MS` by default). */
  headTimeoutMs?: number;
}

/** Whether a `Proxy-Authorization: Basic …` header carries credentials `authorize` accepts. */
function basicAuthorized(header: string | undefined, authorize: ProxyAuthorize): boolean {
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) return false;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon >= 0 && authorize(text.slice(0, colon), text.slice(colon + 1));
}

const AUTH_REQUIRED =
  'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="MCP Warden"\r\n' +
  'X-Warden-Reason: this proxy belongs to one server instance: its credentials are missing or wrong\r\n' +
  'Content-Length: 0\r\nConnection: close\r\n\r\n';

function onConnect(
  dial: Dial,
  req: http.IncomingMessage,
  sock: Duplex,
  head: Buffer,
  authorize?: ProxyAuthorize,
): void {
  if (authorize && !basicAuthorized(req.headers['proxy-authorization'], authorize))
    return void sock.end(AUTH_REQUIRED);
  const dest = parseAuthority(req.url ?? '');
  if (!dest) {
    const message = `bad CONNECT target "${req.url}"`;
    return httpRefusal(sock, { reason: 'bad-destination', message });
  }
  sock.pause();
  void dial(dest.host, dest.port, sock, { relay: true }).then((dialed) => {
    if (!dialed.ok) return httpRefusal(sock, dialed.refusal);
    sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    relay(sock, dialed.socket, head);
  });
}

/**
 * The first request of an HTTP connection: its head read strictly (anything ambiguous refused),
 * then a plain `http://` HTTP/1.1 request relayed on the fast path, and any other (CONNECT,
 * `https://`, HTTP/1.0, a chunked body) given to Node's HTTP server with the bytes read.
 */
function serveHttp(
  sock: net.Socket,
  first: Buffer,
  web: http.Server,
  dial: Dial,
  options: ProxyOptions,
): void {
  readHead(sock, first, options.headTimeoutMs ?? HEAD_TIMEOUT_MS, (outcome, bytes) => {
    if (outcome.kind === 'timeout') {
      return httpError(sock, 408, 'Request Timeout', 'warden: the request head came too slowly');
    }
    if (outcome.kind === 'bad') {
      return httpError(sock, outcome.status, outcome.statusText, `warden: ${outcome.why}`);
    }
    if (isPlainRequest(outcome.head)) {
      return onPlainRequest(dial, outcome.head, sock, bytes.subarray(outcome.size), options);
    }
    sock.unshift(bytes);
    web.emit('connection', sock);
    sock.resume();
  });
}

function onPlainRequest(
  dial: Dial,
  head: RequestHead,
  sock: net.Socket,
  early: Buffer,
  { authorize }: ProxyOptions,
): void {
  if (authorize && !basicAuthorized(head.proxyAuthorization, authorize))
    return void sock.end(AUTH_REQUIRED);
  const url = head.url!;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  void dial(host, Number(url.port || 80), sock, { relay: true }).then((dialed) => {
    if (!dialed.ok) return httpRefusal(sock, dialed.refusal);
    relayPlainRequest(head, sock, dialed.socket, early);
  });
}

const extraCaContexts = new WeakMap<readonly string[], tls.SecureContext>();

/**
 * What Warden trusts when it opens TLS itself: Node's default store, with `extraCa` added where
 * given (a test's), else with the certificates the shell front moved aside for this process.
 */
function trustOptions(extraCa: readonly string[] | undefined): tls.ConnectionOptions {
  if (extraCa?.length) {
    // Built once per list: a context copies the whole default store.
    let secureContext = extraCaContexts.get(extraCa);
    if (!secureContext) {
      secureContext = trustingAlso(extraCa.join('\n'));
      extraCaContexts.set(extraCa, secureContext);
    }
    return { secureContext };
  }
  const secureContext = extraCaContext();
  return secureContext ? { secureContext } : {};
}

/** Answers one request of Node's HTTP server with `status` and closes the connection. */
function answerError(res: http.ServerResponse, status: number, text: string, reason: string): void {
  res.writeHead(status, text, {
    'X-Warden-Reason': reason,
    'Content-Type': 'text/plain',
    Connection: 'close',
  });
  res.end(`${reason}\n`);
}

const HOP_BY_HOP_AND_HOST = new Set([...HOP_BY_HOP, 'host']);

/** Client connections whose answer is relayed like a tunnel (absolute-form `http://`). */
const relayed = new WeakSet<object>();
/** Client connections that have had a request. */
const answered = new WeakSet<object>();

function onRequest(
  dial: Dial,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  { authorize, extraCa }: ProxyOptions,
): void {
  // A request pipelined behind one relayed like a tunnel is not answered: that answer ends the
  // connection, and its `Connection: close` tells the client to ask again.
  if (relayed.has(req.socket)) return void req.resume();
  if (authorize && !basicAuthorized(req.headers['proxy-authorization'], authorize)) {
    res.socket?.end(AUTH_REQUIRED);
    return;
  }
  // A later request on a kept-alive connection is read by Node alone: its target is held to the
  // same rules as a first request's.
  const hosts = req.rawHeaders.filter((name, i) => i % 2 === 0 && /^host$/i.test(name)).length;
  const url = hosts > 1 ? 'a repeated Host header' : readTarget(req.url ?? '', req.headers.host);
  if (typeof url === 'string') {
    return answerError(res, 400, 'Bad Request', `warden: ${url}`.replace(/[^\x20-\x7e]/g, '?'));
  }
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Plain HTTP/1.1 is relayed like a tunnel when it is the connection's first request (no answer
  // of Node's can be under way on it); the connection then ends with the answer.
  const first = !answered.has(req.socket);
  answered.add(req.socket);
  const tunnelled = first && !secure && req.httpVersion === '1.1';
  if (tunnelled) relayed.add(req.socket);
  req.pause();
  const port = Number(url.port || (secure ? 443 : 80));
  void dial(host, port, res, { relay: tunnelled }).then((dialed) => {
    if (!dialed.ok) {
      return answerError(res, ...refusalStatus(dialed.refusal));
    }
    const { socket } = dialed;
    if (tunnelled) {
      return relayAbsoluteForm(req, req.socket, socket, `${url.pathname}${url.search}`, url.host);
    }
    // Warden opens TLS itself here, so the certificate is checked against Warden's trust.
    const conn: Duplex = secure
      ? tls.connect({
          socket,
          servername: net.isIP(host) ? undefined : host,
          ...trustOptions(extraCa),
        })
      : socket;
    const up = http.request({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: upstreamHeaders(req.rawHeaders, url.host, HOP_BY_HOP_AND_HOST),
      setHost: false,
      createConnection: () => conn,
    });
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.statusMessage, cleanHeaders(r.rawHeaders));
      r.pipe(res);
    });
    up.on('error', (e) => {
      if (res.headersSent) return void res.destroy();
      const reason = `warden: upstream: ${e.message}`.replace(/[^\x20-\x7e]/g, '?');
      res.writeHead(502, { 'X-Warden-Reason': reason, 'Content-Type': 'text/plain' });
      res.end(`${reason}\n`);
    });
    req.pipe(up);
    req.resume();
  });
}

/**
 * Creates the proxy server: `listen(port, '127.0.0.1')` on the host (macOS), or `listen(server)`
 * with the listening socket handed over by the sandbox init (Linux).
 */
export function createProxyServer(dial: Dial, options: ProxyOptions = {}): net.Server {
  const { authorize } = options;
  // No request timeout: the only client is the sandboxed server, and tunnels may live for hours.
  const web = http.createServer({ requestTimeout: 0 });
  web.on('connect', (req: http.IncomingMessage, sock: Duplex, head: Buffer) =>
    onConnect(dial, req, sock, head, authorize),
  );
  web.on('request', (req: http.IncomingMessage, res: http.ServerResponse) =>
    onRequest(dial, req, res, options),
  );
  web.on('clientError', (_e, sock: Duplex) => sock.destroy());
  const budget = new ReadBufferBudget();
  // Nagle's algorithm off, as on the upstream side: a relayed write goes out as it is made. With
  // it on, the second part of a flight the client answers whole (a TLS server's handshake,
  // relayed as it arrives) waited for the client's delayed acknowledgement of the first: about
  // 40 ms a handshake.
  const noDelay = true;
  return net.createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay }, (accepted) => {
    const sock = withReadLoop(accepted, budget);
    sock.on('error', () => sock.destroy());
    // Half-open is for tunnels: a client that leaves before saying anything is let go at once.
    const gone = () => sock.destroy();
    sock.once('end', gone);
    sock.once('data', (first: Buffer) => {
      sock.off('end', gone);
      if (first[0] === 5) return serveSocks5(sock, first, dial, authorize);
      if (first[0] === 4) return void sock.end(Buffer.from([0, 0x5b, 0, 0, 0, 0, 0, 0]));
      serveHttp(sock, first, web, dial, options);
    });
    sock.resume();
  });
}
