/**
 * The Streamable HTTP front door: `http://127.0.0.1:<port>/mcp/<NAME>`, bound to loopback, with a
 * bearer token, Host and Origin validation, a body size and nesting limit. Each MCP session (the
 * SDK's transport, one per `Mcp-Session-Id`) gets its own server instance, launched only for a
 * valid `initialize`; a session id that is unknown or whose session ended gets 404 (the client
 * then starts a new session, as the specification says); DELETE ends the session and its instance.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  MAX_MESSAGE_CONTAINERS,
  MAX_MESSAGE_DEPTH,
  jsonTextShape,
} from '../../app/json/json-depth';
import { createRequestGuard } from '../web/request-guard';
import type { RefusedMessage } from './line-transport';
import { HttpSessionTransport } from './http-session-transport';
import { OWNER_PATH } from './gateway-check';

type RefusedLimit = RefusedMessage['limit'];

export interface HttpFrontDoorOptions {
  port: number;
  /** Whether a bearer token is one Warden issued and has not revoked. */
  isToken: (offered: string) => Promise<boolean>;
  /** Answers `warden clients connect`'s ownership challenge for its bound port (gateway-check). */
  ownerProof: (port: number, nonce: string) => Promise<string>;
  maxBodyBytes: number;
  /** Whether a server of that name exists. */
  hasServer: (name: string) => boolean;
  /** A request refused over a limit (recorded in the audit log), with its session if it had one. */
  onRefused?: (refusal: {
    server: string;
    session: string | undefined;
    limit: RefusedLimit;
    max: number;
    detail: string;
  }) => void;
  /**
   * Opens a session for a new client transport; resolves, once its instance has been launched,
   * with the function that ends the session and its instance.
   */
  openSession: (name: string, transport: HttpSessionTransport) => Promise<() => Promise<void>>;
}

export interface HttpFrontDoor {
  port: number;
  url: (name: string) => string;
  close(): Promise<void>;
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
  code = -32000,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code, message: `Warden: ${message}` },
    }),
  );
}

/** Whether a POST body starts a session: one JSON-RPC `initialize` request. */
function isInitialize(body: unknown): boolean {
  const message: unknown = Array.isArray(body) && body.length === 1 ? body[0] : body;
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  return (
    m.jsonrpc === '2.0' &&
    m.method === 'initialize' &&
    (typeof m.id === 'string' || typeof m.id === 'number')
  );
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Starts the front door on 127.0.0.1. */
export async function startHttpFrontDoor(o: HttpFrontDoorOptions): Promise<HttpFrontDoor> {
  const sessions = new Map<
    string,
    { name: string; transport: HttpSessionTransport; end?: () => Promise<void> }
  >();
  // Host and Origin are checked against the port actually bound, known once listening.
  const bound: { guard?: ReturnType<typeof createRequestGuard>; port?: number } = {};

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = bound.guard!.checkHttp(req);
    if (refusal) return refuse(res, refusal.status === 421 ? 403 : refusal.status, refusal.message);
    const path = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (path.pathname === OWNER_PATH && req.method === 'GET') {
      const nonce = path.searchParams.get('nonce') ?? '';
      if (!/^[0-9a-f]{32}$/.test(nonce)) return refuse(res, 400, 'a nonce is required');
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ proof: await o.ownerProof(bound.port!, nonce) }));
    }
    const auth = req.headers.authorization ?? '';
    const offered = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    if (!offered || !(await o.isToken(offered))) {
      return refuse(res, 401, 'a valid bearer token is required', {
        'www-authenticate': 'Bearer realm="warden"',
      });
    }
    const match = /^\/mcp\/([^/?#]+)\/?(?:\?.*)?$/.exec(req.url ?? '');
    const name = match?.[1] ? decodeURIComponent(match[1]) : undefined;
    if (!name || !o.hasServer(name)) return refuse(res, 404, `no server named "${name ?? ''}"`);

    const header = req.headers['mcp-session-id'];
    const refused = (limit: RefusedLimit, max: number, detail: string) =>
      o.onRefused?.({
        server: name,
        session: typeof header === 'string' ? header : undefined,
        limit,
        max,
        detail,
      });
    let body: unknown;
    if (req.method === 'POST') {
      const tooLarge = `request body over ${o.maxBodyBytes} bytes`;
      if (Number(req.headers['content-length'] ?? 0) > o.maxBodyBytes) {
        refused('messageBytes', o.maxBodyBytes, `an HTTP client sent a ${tooLarge}`);
        res.setHeader('connection', 'close');
        return refuse(res, 413, tooLarge);
      }
      const raw = await readBody(req, o.maxBodyBytes);
      if (raw === 'too-large') {
        refused('messageBytes', o.maxBodyBytes, `an HTTP client sent a ${tooLarge}`);
        res.setHeader('connection', 'close');
        return refuse(res, 413, tooLarge);
      }
      const text = raw.toString('utf8');
      const shape = jsonTextShape(text, MAX_MESSAGE_DEPTH, MAX_MESSAGE_CONTAINERS);
      if (shape.depth > MAX_MESSAGE_DEPTH) {
        const tooDeep = `the request body is nested deeper than ${MAX_MESSAGE_DEPTH} levels`;
        refused('messageDepth', MAX_MESSAGE_DEPTH, `an HTTP client sent a request: ${tooDeep}`);
        return refuse(res, 400, tooDeep, {}, -32004);
      }
      if (shape.containers > MAX_MESSAGE_CONTAINERS) {
        const tooMany = `the request body holds more than ${MAX_MESSAGE_CONTAINERS} arrays and objects`;
        refused(
          'messageContainers',
          MAX_MESSAGE_CONTAINERS,
          `an HTTP client sent a request: ${tooMany}`,
        );
        return refuse(res, 413, tooMany, {}, -32003);
      }
      try {
        body = JSON.parse(text);
      } catch {
        return refuse(res, 400, 'the request body is not JSON');
      }
    }
    const sessionId = header;
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session || session.name !== name) return refuse(res, 404, 'unknown or ended session');
      return session.transport.inner.handleRequest(req, res, body);
    }
    // Nothing is launched for a request that cannot start a session.
    if (req.method !== 'POST' || !isInitialize(body))
      return refuse(res, 400, 'start a session with an initialize request');
    let transport: HttpSessionTransport | undefined = undefined;
    const inner = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { name, transport: transport! });
      },
      // DELETE: the instance is gone before the client hears that the session ended.
      onsessionclosed: async (id) => {
        const end = sessions.get(id)?.end;
        sessions.delete(id);
        await end?.();
      },
    });
    transport = new HttpSessionTransport(inner, () => {
      if (inner.sessionId) sessions.delete(inner.sessionId);
    });
    const end = await o.openSession(name, transport);
    await inner.handleRequest(req, res, body);
    const opened = inner.sessionId ? sessions.get(inner.sessionId) : undefined;
    if (opened) opened.end = end;
    // The SDK refused the initialize (e.g. a bad header): end the session and its instance.
    if (!inner.sessionId) await transport.close();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, (error as Error).message);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // The guard's own token check is for the control panel; here only Host and Origin are used.
  bound.guard = createRequestGuard({ address: '127.0.0.1', port, token: '' });
  bound.port = port;
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/mcp/${encodeURIComponent(name)}`,
    close: async () => {
      for (const { transport } of [...sessions.values()])
        await transport.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
