/**
 * The broker's side of an allowed connection: connect to the checked address (with a timeout)
 * and join the socket and the stream both ways, with backpressure and half-close.
 */
import net from 'node:net';
import type { MuxStream } from '../sandbox-init/mux-stream';

/** Connects to `host:port` (an address, never a name). */
export function connectUpstream(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port, allowHalfOpen: true });
    const timer = setTimeout(() => s.destroy(new Error('timed out')), timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Joins an upstream socket and a stream; a reset on either side ends the other. */
export function spliceUpstream(socket: net.Socket, stream: MuxStream): void {
  socket.on('error', () => stream.destroy());
  stream.on('error', () => socket.destroy());
  socket.on('close', () => {
    if (!stream.readableEnded) stream.destroy();
  });
  stream.on('close', () => {
    if (stream.wasReset || !stream.writableFinished) socket.destroy();
  });
  socket.pipe(stream);
  stream.pipe(socket);
}
