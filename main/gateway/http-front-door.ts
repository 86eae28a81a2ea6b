/**
 * The Streamable HTTP front door: `http://127.0.0.1:<port>/mcp/<NAME>`, bound to loopback, with a
 * bearer token, Host and Origin validation and a body size limit. Each MCP session (the SDK's
 * transport, one per `Mcp-Session-Id`) gets its own server instance.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRequestGuard } from '../web/request-guard';
import { OWNER_PATH } from './gateway-check';

export interface HttpFrontDoorOptions {
  port: number;
  /** Whether a bearer token is one Warden issued and has not revoked. */
  isToken: (offered: string) => Promise<boolean>;
  /** Answers the ownership challenge of `warden clients connect` (see gateway-check.ts). */
  ownerProof: (nonce: string) => Promise<string>;
  maxBodyBytes: number;
  /** Whether a server of that name exists. */
  hasServer: (name: string) => boolean;
  /** Opens a session for a new client transport; resolves when its instance has been launched. */
  openSession: (name: string, transport: StreamableHTTPServerTransport) => Promise<void>;
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
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Warden: ${message}` },
    }),
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
  const sessions = new Map<string, { name: string; transport: StreamableHTTPServerTransport }>();
  // Host and Origin are checked against the port actually bound, known once listening.
  const bound: { guard?: ReturnType<typeof createRequestGuard> } = {};

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refusal = bound.guard!.checkHttp(req);
    if (refusal) return refuse(res, refusal.status === 421 ? 403 : refusal.status, refusal.message);
    const path = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (path.pathname === OWNER_PATH && req.method === 'GET') {
      const nonce = path.searchParams.get('nonce') ?? '';
      if (!/^[0-9a-f]{32}$/.test(nonce)) return refuse(res, 400, 'a nonce is required');
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ proof: await o.ownerProof(nonce) }));
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

    let body: unknown;
    if (req.method === 'POST') {
      if (Number(req.headers['content-length'] ?? 0) > o.maxBodyBytes) {
        res.setHeader('connection', 'close');
        return refuse(res, 413, `request body over ${o.maxBodyBytes} bytes`);
      }
      const raw = await readBody(req, o.maxBodyBytes);
      if (raw === 'too-large') {
        res.setHeader('connection', 'close');
        return refuse(res, 413, `request body over ${o.maxBodyBytes} bytes`);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return refuse(res, 400, 'the request body is not JSON');
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session || session.name !== name) return refuse(res, 404, 'unknown or ended session');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST')
      return refuse(res, 400, 'start a session with an initialize request');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { name, transport });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await o.openSession(name, transport);
    return transport.handleRequest(req, res, body);
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
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/mcp/${encodeURIComponent(name)}`,
    close: async () => {
      for (const { transport } of sessions.values()) await transport.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
