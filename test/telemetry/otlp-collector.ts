/**
 * A local OTLP/HTTP collector for tests: takes JSON posts to `/v1/logs` and `/v1/traces`, keeps
 * each body as received (raw text and parsed), and answers 200 (or `status`, closing the
 * connection, with `retryAfter` as its Retry-After header), or never answers when `hang`.
 */
import http from 'node:http';
import type net from 'node:net';

export interface OtlpPost {
  path: string;
  /** When it arrived (`performance.now()`). */
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: unknown;
}

export interface OtlpCollector {
  endpoint: string;
  posts: OtlpPost[];
  /** Log records received, flattened from every post. */
  logRecords(): Record<string, unknown>[];
  /** Spans received, flattened from every post. */
  spans(): Record<string, unknown>[];
  close(): Promise<void>;
}

const flat = (posts: OtlpPost[], path: string, outer: string, inner: string, leaf: string) =>
  posts
    .filter((p) => p.path === path)
    .flatMap((p) => (p.body as Record<string, Record<string, unknown>[]>)[outer] ?? [])
    .flatMap((r) => (r[inner] as Record<string, unknown>[] | undefined) ?? [])
    .flatMap((s) => (s[leaf] as Record<string, unknown>[] | undefined) ?? []);

/** Starts a collector on 127.0.0.1. */
export async function startOtlpCollector(
  options: { hang?: boolean; status?: number; retryAfter?: string } = {},
): Promise<OtlpCollector> {
  const posts: OtlpPost[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      const at = performance.now();
      posts.push({ path: req.url ?? '', at, headers: req.headers, raw, body: JSON.parse(raw) });
      if (options.hang) return;
      const status = options.status ?? 200;
      res.writeHead(status, {
        'Content-Type': 'application/json',
        ...(status === 200 ? {} : { Connection: 'close' }),
        ...(options.retryAfter ? { 'Retry-After': options.retryAfter } : {}),
      });
      res.end('{}');
    });
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    posts,
    logRecords: () => flat(posts, '/v1/logs', 'resourceLogs', 'scopeLogs', 'logRecords'),
    spans: () => flat(posts, '/v1/traces', 'resourceSpans', 'scopeSpans', 'spans'),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
