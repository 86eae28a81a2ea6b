/**
 * Waits for the head of the first request on a proxy connection, within a time limit (a client
 * that trickles its head, a slow loris, is answered 408 rather than holding the connection), and
 * hands over what was read: the head as `request-head.ts` reads it, and the bytes themselves.
 */
import type net from 'node:net';
import { type HeadRead, readRequestHead } from './request-head';

/** How long a client has for its first request head, from its first byte. */
export const HEAD_TIMEOUT_MS = 30_000;

export type HeadOutcome = Exclude<HeadRead, { kind: 'incomplete' }> | { kind: 'timeout' };

/**
 * Reads `sock` (flowing; `first` is what it sent first) until a request head is complete, wrong
 * or late, then pauses it and calls `then` with the outcome and every byte read so far. A client
 * that ends before its head is complete is let go.
 */
export function readHead(
  sock: net.Socket,
  first: Buffer,
  timeoutMs: number,
  then: (outcome: HeadOutcome, bytes: Buffer) => void,
): void {
  const read = readRequestHead(first);
  if (read.kind !== 'incomplete') {
    sock.pause();
    return then(read, first);
  }
  let bytes = first;
  const stop = () => {
    clearTimeout(timer);
    sock.off('data', onData);
    sock.off('end', onEnd);
    sock.off('close', stop);
    sock.pause();
  };
  const onData = (data: Buffer) => {
    bytes = Buffer.concat([bytes, data]);
    const next = readRequestHead(bytes);
    if (next.kind === 'incomplete') return;
    stop();
    then(next, bytes);
  };
  const onEnd = () => {
    stop();
    sock.destroy();
  };
  const timer = setTimeout(() => {
    stop();
    then({ kind: 'timeout' }, bytes);
  }, timeoutMs);
  sock.on('data', onData);
  sock.once('end', onEnd);
  // A connection reset or destroyed meanwhile needs no answer.
  sock.once('close', stop);
}
