/**
 * Serves the built renderer (out/renderer) read-only, with security headers on every response.
 * The page is only code; everything that touches the core goes through the token-checked
 * WebSocket, so these files carry no secrets.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Headers sent with every response; `origin` is the one the request came in on. */
export function securityHeaders(origin: string): Record<string, string> {
  const wsOrigin = origin.replace(/^http:/, 'ws:');
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${wsOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** Writes a short plain-text answer with the security headers. */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
): void {
  const body = Buffer.from(`${text}\n`, 'utf8');
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(body.length),
  });
  res.end(body);
}

/** Maps a URL path to a file inside `root`, or undefined when it would leave `root`. */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const base = resolve(root);
  const full = resolve(join(base, relative));
  return full.startsWith(base + sep) ? full : undefined;
}

/** Answers GET/HEAD for a file of the renderer; 404 for anything else under the root. */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Method not allowed', { ...headers, Allow: 'GET, HEAD' });
    return;
  }
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  const file = resolveStaticPath(root, path);
  if (file === undefined) {
    sendText(res, 404, 'Not found', headers);
    return;
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    const body = await readFile(file);
    res.writeHead(200, {
      ...headers,
      'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
      'Content-Length': String(body.length),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    sendText(res, 404, 'Not found', headers);
  }
}
