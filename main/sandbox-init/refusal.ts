/**
 * How a refusal from the host reads to a client inside the sandbox: an HTTP status with an
 * `X-Warden-Reason` header, or the SOCKS5 reply code that clients print ("not allowed by
 * ruleset", "host unreachable", …).
 */
import type { Duplex } from 'node:stream';
import { FailCode } from './mux-frames';
import type { MuxStream } from './mux-stream';
import type { OpenRefusal } from './mux-session';

const httpStatus: Record<number, [number, string]> = {
  [FailCode.Denied]: [403, 'Forbidden'],
  [FailCode.NotAllowed]: [403, 'Forbidden'],
  [FailCode.AskTimeout]: [403, 'Forbidden'],
  [FailCode.AddressBlocked]: [403, 'Forbidden'],
  [FailCode.ResolveFailed]: [502, 'Bad Gateway'],
  [FailCode.ConnectFailed]: [502, 'Bad Gateway'],
  [FailCode.Limit]: [503, 'Service Unavailable'],
  [FailCode.BadDestination]: [400, 'Bad Request'],
};

const socksReply: Record<number, number> = {
  [FailCode.Denied]: 0x02,
  [FailCode.NotAllowed]: 0x02,
  [FailCode.AskTimeout]: 0x02,
  [FailCode.AddressBlocked]: 0x02,
  [FailCode.ResolveFailed]: 0x04,
  [FailCode.ConnectFailed]: 0x05,
  [FailCode.Limit]: 0x01,
  [FailCode.BadDestination]: 0x01,
};

/** HTTP status, status text and a header-safe reason for a refusal. */
export function refusalStatus(r: OpenRefusal): [number, string, string] {
  const [status, text] = httpStatus[r.code] ?? [502, 'Bad Gateway'];
  return [status, text, r.reason.replace(/[^\x20-\x7e]/g, '?')];
}

/** Writes a complete HTTP error response on a raw socket and closes the connection. */
export function httpRefusal(sock: Duplex, r: OpenRefusal): void {
  const [status, text, reason] = refusalStatus(r);
  const body = `${reason}\n`;
  sock.end(
    `HTTP/1.1 ${status} ${text}\r\nX-Warden-Reason: ${reason}\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The SOCKS5 reply code for a refusal. */
export function socksRefusalCode(r: OpenRefusal): number {
  return socksReply[r.code] ?? 0x01;
}

/** Joins a client socket and an opened stream in both directions, with backpressure. */
export function splice(sock: Duplex, stream: MuxStream): void {
  sock.pipe(stream);
  stream.pipe(sock);
}

/**
 * Ties the lifetimes together from the moment the stream is requested: a client that vanishes
 * (even while the host is still deciding) resets the stream; a reset from the host destroys the
 * client socket.
 */
export function link(sock: Duplex, stream: MuxStream): void {
  sock.on('error', () => stream.destroy());
  stream.on('error', () => sock.destroy());
  sock.on('close', () => {
    if (!stream.readableEnded) stream.destroy();
  });
  stream.on('close', () => {
    if (stream.wasReset && stream.isOpen) sock.destroy();
  });
}

/** Waits for the host's answer to an OPEN. */
export function whenOpened(stream: MuxStream): Promise<OpenRefusal | undefined> {
  return new Promise((resolve) => {
    stream.once('opened', () => resolve(undefined));
    stream.once('refused', (r: OpenRefusal) => resolve(r));
    stream.once('close', () =>
      resolve({ code: FailCode.ConnectFailed, reason: 'egress channel closed' }),
    );
  });
}
