/**
 * What the proxy asks of the broker (`Dial`), and how a refusal reads to a client inside the
 * sandbox: an HTTP status with an `X-Warden-Reason` header, or the SOCKS5 reply code that clients
 * print ("not allowed by ruleset", "host unreachable", …).
 */
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressReason } from '../../app/contract/grants';

/** Why a connection was not opened, in words the client is shown. */
export interface Refusal {
  reason: EgressReason;
  message: string;
}

/** The client side of a dial: a raw connection, or one HTTP exchange (its response). */
export interface DialClient {
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  destroy(): unknown;
}

export type Dialed = { ok: true; socket: net.Socket } | { ok: false; refusal: Refusal };

/**
 * Decides `host:port` for one client connection of the instance and connects to the checked
 * address. `client` is the connection asking: if it goes away while the decision is pending, the
 * upstream socket is not kept. `relay` asks for a socket that `relay()` will join to the client
 * (CONNECT, SOCKS5); without it the socket is for an HTTP client (absolute-form requests).
 */
export type Dial = (
  host: string,
  port: number,
  client: DialClient,
  options?: { relay?: boolean },
) => Promise<Dialed>;

const httpStatus: Record<EgressReason, [number, string]> = {
  denied: [403, 'Forbidden'],
  'not-allowed': [403, 'Forbidden'],
  'ask-timeout': [403, 'Forbidden'],
  'address-blocked': [403, 'Forbidden'],
  'resolve-failed': [502, 'Bad Gateway'],
  'connect-failed': [502, 'Bad Gateway'],
  limit: [503, 'Service Unavailable'],
  'bad-destination': [400, 'Bad Request'],
};

const socksReply: Record<EgressReason, number> = {
  denied: 0x02,
  'not-allowed': 0x02,
  'ask-timeout': 0x02,
  'address-blocked': 0x02,
  'resolve-failed': 0x04,
  'connect-failed': 0x05,
  limit: 0x01,
  'bad-destination': 0x01,
};

/** HTTP status, status text and a header-safe reason for a refusal. */
export function refusalStatus(r: Refusal): [number, string, string] {
  const [status, text] = httpStatus[r.reason];
  return [status, text, `warden: ${r.message}`.replace(/[^\x20-\x7e]/g, '?')];
}

/** Writes a complete HTTP error response on a raw socket and closes the connection. */
export function httpRefusal(sock: Duplex, r: Refusal): void {
  httpError(sock, ...refusalStatus(r));
}

/**
 * Answers `status` on a raw socket, with `reason` (header-safe) as header and body, and closes the
 * connection; what the client still sends is read and dropped.
 */
export function httpError(sock: Duplex, status: number, text: string, reason: string): void {
  const body = `${reason}\n`;
  sock.end(
    `HTTP/1.1 ${status} ${text}\r\nX-Warden-Reason: ${reason}\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Read on (and drop) what still comes, so that the client's close is seen and the socket let go.
  sock.resume();
}

/** The SOCKS5 reply code for a refusal. */
export function socksRefusalCode(r: Refusal): number {
  return socksReply[r.reason];
}
