/**
 * Loaded into Node-based servers through NODE_OPTIONS=--require. Node before the release that
 * honours NODE_USE_ENV_PROXY ignores HTTP(S)_PROXY, and most `npx` servers use the built-in
 * `fetch` or `http(s)`; where Node honours it, only its global agents (and agents built with
 * `proxyEnv`) use the proxy, and the preload leaves those to Node. This routes both through the
 * sandbox proxy with CONNECT tunnels:
 * - `http.Agent` / `https.Agent` connections (every agent, including custom ones);
 * - built-in `fetch`: its bundled undici `Agent` class is taken from the global dispatcher
 *   (`Symbol.for('undici.globalDispatcher.1')`, shared with the npm `undici` package; `.2` from
 *   undici 8, Node 26) and replaced by one whose `connect` tunnels. Node 20 does not expose
 *   `EnvHttpProxyAgent` without `--expose-internals`, so this is the smallest way in. Installed
 *   on first `fetch` call so that servers that never fetch do not pay for loading undici (~25 ms).
 * Loopback destinations stay direct where `NO_PROXY` names loopback (the sandbox's own, in a
 * network namespace of its own), as curl and Node's own proxying do; otherwise they go through
 * the proxy like any other (app/policy/network-loopback.ts). The proxy itself is always direct.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

type Callback = (err: Error | null, sock?: net.Socket) => void;

const proxyUrl =
  process.env.HTTPS_PROXY ??
  process.env.https_proxy ??
  process.env.HTTP_PROXY ??
  process.env.http_proxy;
const proxy = proxyUrl ? new URL(proxyUrl) : undefined;
// Credentials in the proxy URL (the per-instance proxy on the host's loopback, on macOS).
const proxyLogin = proxy?.username
  ? `Proxy-Authorization: Basic ${Buffer.from(
      `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`,
    ).toString('base64')}\r\n`
  : '';

/** A host as named, without IPv6 brackets and in lower case. */
const bare = (host: string): string => host.replace(/^\[|\]$/g, '').toLowerCase();

function isLoopback(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || h === '::1' || h.startsWith('127.') || h === '::ffff:127.0.0.1';
}

/**
 * The loopback names `NO_PROXY` leaves out of the proxy (the sandbox's own), matched by name as
 * Node's own proxying and curl match them, so that every agent and `fetch` agree: another `127.x`
 * address goes through the proxy.
 */
const ownLoopback = new Set(
  (process.env.NO_PROXY ?? process.env.no_proxy ?? '')
    .split(',')
    .map((entry) => bare(entry.trim()))
    .filter(isLoopback),
);

/**
 * Whether a connection goes to `host` directly: the sandbox's loopback, or the proxy itself (on
 * loopback: the preload patches nothing otherwise).
 */
function direct(host: string, port: number): boolean {
  if (!isLoopback(host)) return false;
  return ownLoopback.has(bare(host)) || port === Number(proxy!.port);
}

/** Opens a CONNECT tunnel through the sandbox proxy. */
function tunnel(host: string, port: number, callback: Callback): void {
  let done = false;
  const cb: Callback = (e, sock) => {
    if (!done) callback(e, sock);
    done = true;
  };
  // Nagle's algorithm off, as Node's own agents and undici set it on a direct connection: a
  // request written in parts is not held back for the proxy's acknowledgement of the first.
  const s = net.connect({ port: Number(proxy!.port), host: proxy!.hostname, noDelay: true });
  const target =
    host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
  let head = Buffer.alloc(0);
  // Read the reply in paused mode: once the 'readable' listener is gone the socket is back in
  // its initial state, so whoever takes it (http client, TLS, undici) starts it as usual.
  const onReadable = (): void => {
    let d: Buffer | null;
    while ((d = s.read() as Buffer | null) !== null) {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) continue;
      s.off('readable', onReadable).off('error', onError);
      const text = head.subarray(0, end).toString('latin1');
      if (end + 4 < head.length) s.unshift(head.subarray(end + 4));
      if (/^HTTP\/1\.[01] 200/.test(text)) return cb(null, s);
      s.destroy();
      const reason = /\r\nx-warden-reason: *([^\r]*)/i.exec(text)?.[1] ?? text.split('\r\n')[0];
      return cb(
        Object.assign(new Error(`egress refused ${target}: ${reason}`), { code: 'EWARDENREFUSED' }),
      );
    }
  };
  const onError = (e: Error): void => cb(e);
  s.on('readable', onReadable).on('error', onError);
  s.once('close', () => cb(new Error(`egress proxy closed the connection to ${target}`)));
  s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${proxyLogin}\r\n`);
}

type AgentOptions = {
  host?: string;
  hostname?: string;
  port?: number | string;
  servername?: string;
};
type CreateConnection = (
  this: http.Agent,
  options: AgentOptions,
  cb?: Callback,
) => net.Socket | undefined;

/**
 * Whether Node proxies `agent`'s connections itself. Node's built-in proxy support (22.23, 24)
 * keeps an agent's proxy settings under an internal symbol when it was built with `proxyEnv`, as
 * the global agents are under NODE_USE_ENV_PROXY (which the sandbox's environment sets), and the
 * agent's own createConnection then tunnels. A tunnel of the preload's under it had the proxy
 * receive the request itself, and every https request through the global agent failed.
 */
function proxiedByNode(agent: http.Agent): boolean {
  const key = Object.getOwnPropertySymbols(agent).find((s) => s.description === 'kProxyConfig');
  return key !== undefined && (agent as unknown as Record<symbol, unknown>)[key] != null;
}

function patchAgent(proto: { createConnection?: unknown }, secure: boolean): void {
  const original = proto.createConnection as CreateConnection;
  proto.createConnection = function (this: http.Agent, options: AgentOptions, cb?: Callback) {
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port ?? (secure ? 443 : 80));
    if (!cb || direct(host, port) || proxiedByNode(this)) return original.call(this, options, cb);
    tunnel(host, port, (e, sock) => {
      if (e || !sock) return cb(e);
      cb(null, secure ? original.call(this, { ...options, socket: sock } as AgentOptions) : sock);
    });
    return undefined;
  };
}

const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
/**
 * undici 7 keeps its dispatcher under version 2 of the key too, and reads version 1; undici 8
 * (Node 26's `fetch`) reads version 2 and keeps under version 1 a wrapper of its dispatcher that
 * speaks the older handler API (for the copies of undici a server loads).
 */
const DISPATCHER_2 = Symbol.for('undici.globalDispatcher.2');
type DispatcherClass = { constructor: new (o: object) => unknown };
type UndiciConnectOptions = {
  hostname: string;
  host?: string;
  port: string;
  protocol: string;
  servername?: string;
};

function fetchConnector(opts: UndiciConnectOptions, cb: Callback): void {
  const port = Number(opts.port || (opts.protocol === 'https:' ? 443 : 80));
  if (direct(opts.hostname, port)) {
    const s =
      opts.protocol === 'https:'
        ? tls.connect({ host: opts.hostname, port, servername: opts.servername })
        : net.connect(port, opts.hostname);
    s.once(opts.protocol === 'https:' ? 'secureConnect' : 'connect', () => cb(null, s)).once(
      'error',
      (e: Error) => cb(e),
    );
    return;
  }
  tunnel(opts.hostname, port, (e, sock) => {
    if (e || !sock) return cb(e);
    if (opts.protocol !== 'https:') return cb(null, sock);
    const host = bare(opts.hostname);
    const name = opts.servername || host;
    // An address has no server name to send; `host` is what its certificate is checked against
    // (left out, Node would check it against "localhost").
    const t = tls.connect({
      socket: sock,
      host,
      servername: net.isIP(name) ? undefined : name,
      ALPNProtocols: ['http/1.1'],
    });
    t.once('secureConnect', () => cb(null, t)).once('error', (err: Error) => cb(err));
  });
}

function patchFetch(): void {
  const g = globalThis as unknown as Record<symbol, unknown> & { fetch?: typeof fetch };
  const original = g.fetch;
  if (typeof original !== 'function') return;
  let installed = false;
  const install = (): void => {
    installed = true;
    // Loads Node's own undici, which sets its default where no copy of undici set one before.
    original('').catch(() => undefined);
    const v2 = g[DISPATCHER_2] as DispatcherClass | undefined;
    const v1 = g[DISPATCHER] as DispatcherClass | undefined;
    const current = v2 ?? v1;
    if (!current) return;
    const dispatcher = new current.constructor({ connect: fetchConnector }) as object;
    if (v2) g[DISPATCHER_2] = dispatcher;
    // Version 1 holds the same dispatcher (undici 5 to 7), or undici 8's wrapper of it for the
    // older handler API (a class of its own, built from the dispatcher it wraps).
    if (v1)
      g[DISPATCHER] =
        v2 && v1.constructor !== v2.constructor ? new v1.constructor(dispatcher) : dispatcher;
  };
  type FetchInput = Parameters<typeof original>[0];
  const wrapped = function fetch(this: unknown, input: FetchInput, init?: RequestInit) {
    if (!installed) install();
    return original.call(this, input, init);
  };
  g.fetch = wrapped;
}

if (proxy && proxy.protocol === 'http:' && isLoopback(proxy.hostname)) {
  patchAgent(http.Agent.prototype, false);
  patchAgent(https.Agent.prototype, true);
  patchFetch();
}
