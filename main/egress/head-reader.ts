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
  // The head so far, in a buffer that grows by doubling: a head sent a byte at a time is copied
  // and scanned in linear time.
  let held = Buffer.allocUnsafe(Math.max(first.length * 2, 4096));
  first.copy(held);
  let length = first.length;
  const stop = () => {
    clearTimeout(timer);
    sock.off('data', onData);
    sock.off('end', onEnd);
    sock.off('close', stop);
    sock.pause();
  };
  const onData = (data: Buffer) => {
    if (length + data.length > held.length) {
      const grown = Buffer.allocUnsafe(Math.max(held.length * 2, length + data.length));
      held.copy(grown, 0, 0, length);
      held = grown;
    }
    data.copy(held, length);
    const scanned = length;
    length += data.length;
    const bytes = held.subarray(0, length);
    const next = readRequestHead(bytes, scanned);
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
    then({ kind: 'timeout' }, held.subarray(0, length));
  }, timeoutMs);
  sock.on('data', onData);
  sock.once('end', onEnd);
  // A connection reset or destroyed meanwhile needs no answer.
  sock.once('close', stop);
}
