/**
 * The fetch a remote server's upstream uses: every connection is opened by the instance's egress
 * broker (the network rules, the grant inbox in ask mode, the address guard on the address
 * actually connected to, one audit event each), never by a resolver of its own, so a name that
 * resolves again to another address (DNS rebinding) is checked again. Redirects are never
 * followed here; the MCP SDK follows those within the origin, each through this fetch again.
 * Every reply is read under the message limit.
 */
import { EventEmitter } from 'node:events';
import type net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { extraCaContext } from '../egress/extra-ca';
import type { Dial } from '../egress/refusal';
import { limitedBody } from './body-limit';

export interface GuardedFetchOptions {
  /** The instance's egress broker: decides, resolves, checks and connects. */
  dial: Dial;
  /** The largest reply body, or SSE event, read from the server. */
  maxMessageBytes: number;
  /** Called as soon as a reply passes the limit. */
  onTooLarge?: (max: number) => void;
}

export interface GuardedFetch {
  fetch: FetchLike;
  /** Ends every connection the fetch holds. */
  close(): Promise<void>;
}

/** Why a connection was not opened, with the broker's words (already audited). */
export class ConnectionRefused extends Error {
  readonly kind = 'connection-refused';
}

/** The client side the broker watches: closed when the socket it gave is closed. */
class DialRequest extends EventEmitter {
  destroyed = false;
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

const DEFAULT_PORT: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Builds the fetch of one remote instance. */
export function guardedFetch(o: GuardedFetchOptions): GuardedFetch {
  // The connector, with the extra certificates the shell front moved aside, made at the first TLS.
  let connector: buildConnector.connector | undefined;
  const tls: buildConnector.connector = (opts, callback) => {
    const secureContext = extraCaContext();
    connector ??= buildConnector(secureContext ? { secureContext } : {});
    connector(opts, callback);
  };
  const agent = new Agent({
    connect: (opts, callback) => {
      const port = opts.port === '' ? DEFAULT_PORT[opts.protocol] : Number(opts.port);
      const request = new DialRequest();
      o.dial(opts.hostname, port ?? 0, request).then(
        (dialed) => {
          if (!dialed.ok) {
            request.destroy();
            return callback(new ConnectionRefused(dialed.refusal.message), null);
          }
          const socket: net.Socket = dialed.socket;
          socket.once('close', () => request.destroy());
          if (opts.protocol !== 'https:') return callback(null, socket);
          tls({ ...opts, httpSocket: socket }, callback);
        },
        (e: unknown) => callback(e instanceof Error ? e : new Error(String(e)), null),
      );
    },
  });
  const fetch: FetchLike = async (url, init) => {
    const response = await undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'manual',
      dispatcher: agent,
    });
    return limitedBody(response as unknown as Response, o.maxMessageBytes, o.onTooLarge);
  };
  return { fetch, close: () => agent.destroy() };
}

/** The first ConnectionRefused in an error's causes, if any. */
export function refusalOf(error: unknown): ConnectionRefused | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof ConnectionRefused) return e;
    e = e.cause;
  }
  return undefined;
}
