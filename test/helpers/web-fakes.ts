/** Raw HTTP requests and the event side of a fake core, for the web server's tests. */
import { request } from 'node:http';
import type { EventName } from '../../app/contract/index';
import type { Reply } from '../../app/contract/reply';

/** What came back: the response, or an accepted WebSocket upgrade (its socket closed). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  upgraded: boolean;
}

/**
 * Sends one HTTP request to 127.0.0.1:`port` with the headers given; Node adds a Host header
 * only when `setHost` is true.
 */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  { method = 'GET', body, setHost = true }: { method?: string; body?: string; setHost?: boolean },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, setHost });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, upgraded: false }),
      );
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', upgraded: true });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** WebSocket upgrade request headers with `over` added; an undefined value leaves that one out. */
export function upgradeHeaders(over: Record<string, string | undefined>): Record<string, string> {
  const base: Record<string, string | undefined> = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    ...over,
  };
  return Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/** The subscriptions of a fake core: a test emits events to whoever listens. */
export class FakeCoreEvents {
  listeners = new Set<(event: EventName, payload: unknown) => void>();
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: EventName, payload: unknown): void {
    for (const l of this.listeners) l(event, payload);
  }
}

/** A fake core that answers every operation with its name. */
export class NamingCore extends FakeCoreEvents {
  handle(op: string): Promise<Reply> {
    return Promise.resolve({ ok: true, value: op });
  }
}
