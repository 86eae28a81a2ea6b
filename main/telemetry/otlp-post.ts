/**
 * OTLP/HTTP requests, sent with Node's own client so that Warden alone decides when they end:
 * each has a time limit, closing aborts what is in flight, and nothing of them (a retry timer, a
 * socket) outlives the close. The OpenTelemetry exporters retry on timers of their own that
 * closing cannot stop, which held a command's exit for seconds when the collector was down.
 */
import http from 'node:http';
import https from 'node:https';

/** Sent; worth sending again (the collector is busy or unreachable); or refused for good. */
export type PostOutcome = 'sent' | 'retry' | 'failed';

/** What became of one request: with `retryAfterMs`, how long the collector asked to be left. */
export interface PostResult {
  outcome: PostOutcome;
  retryAfterMs?: number;
}

export interface OtlpPoster {
  /** POSTs `body` (OTLP JSON) to `url`; never throws. */
  post(url: string, body: Uint8Array): Promise<PostResult>;
  /** Aborts every request in flight and closes the idle connections. */
  close(): void;
}

/** Statuses OTLP/HTTP asks a client to retry after. */
const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds or an HTTP date; undefined
 * when absent or not one of those.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every form of HTTP date begins with the day's name.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A poster sending `headers` with each request, each ended after `timeoutMs`. */
export function otlpPoster(
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
  userAgent: string,
): OtlpPoster {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 2 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 2 }),
  };
  const live = new Set<http.ClientRequest>();
  let closed = false;

  const post = (url: string, body: Uint8Array): Promise<PostResult> =>
    new Promise((resolve) => {
      if (closed) return resolve({ outcome: 'failed' });
      let settled = false;
      const settle = (result: PostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        live.delete(request);
        resolve(result);
      };
      let request: http.ClientRequest;
      try {
        const target = new URL(url);
        const client = target.protocol === 'https:' ? https : http;
        request = client.request(target, {
          method: 'POST',
          agent: agents[target.protocol as keyof typeof agents],
          headers: {
            ...headers,
            'Content-Type': 'application/json',
            'Content-Length': body.byteLength,
            'User-Agent': userAgent,
          },
        });
      } catch {
        // A header value Node will not send, or an address it cannot parse.
        return resolve({ outcome: 'failed' });
      }
      live.add(request);
      const timer = setTimeout(() => request.destroy(new Error('timed out')), timeoutMs);
      timer.unref();
      request.on('error', () => settle({ outcome: 'retry' }));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const retry = RETRYABLE.has(status);
        const after = retry ? retryAfterMs(response.headers['retry-after']) : undefined;
        const outcome: PostResult = {
          outcome: status >= 200 && status < 300 ? 'sent' : retry ? 'retry' : 'failed',
          ...(after === undefined ? {} : { retryAfterMs: after }),
        };
        // The answer's body says nothing Warden acts on; read to its end so that the connection
        // can carry the next request.
        response.on('end', () => settle(outcome));
        response.on('error', () => settle(outcome));
        response.on('close', () => settle(outcome));
        response.resume();
      });
      request.end(body);
    });

  return {
    post,
    close() {
      closed = true;
      for (const request of live) request.destroy(new Error('export closed'));
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
