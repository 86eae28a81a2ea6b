/**
 * The contract over one socket (ws-bridge.ts): a request is answered while the socket is open,
 * and one that arrives while the socket is being closed (its session ended: signed out, expired)
 * reaches the core no more, so that the last frames of an ended session do nothing.
 */
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { serveContractSocket } from './ws-bridge';

/** A socket stand-in: what arrives is emitted as `message`, what is sent is kept. */
function fakeSocket() {
  const ws = Object.assign(new EventEmitter(), {
    OPEN: 1,
    CLOSING: 2,
    readyState: 1,
    sent: [] as string[],
    send(text: string) {
      this.sent.push(text);
    },
    close() {
      this.readyState = 2;
    },
    terminate() {
      this.readyState = 3;
    },
  });
  return ws;
}

describe('a contract socket', () => {
  it('answers while open, and hands the core nothing once it is being closed', async () => {
    const handled: string[] = [];
    const core = {
      handle: (op: string) => {
        handled.push(op);
        return Promise.resolve({ ok: true as const, value: 'v' });
      },
      subscribe: () => () => undefined,
    };
    const ws = fakeSocket();
    serveContractSocket(ws as unknown as WebSocket, core, () => undefined);
    const request = (id: number) =>
      Buffer.from(JSON.stringify({ id, op: 'servers.list', input: {} }));
    ws.emit('message', request(1), false);
    await expect.poll(() => ws.sent.length).toBe(1);
    expect(JSON.parse(ws.sent[0]!)).toEqual({ id: 1, ok: true, value: 'v' });

    // The session ended: the server closes the socket, and a request already on its way arrives.
    ws.close();
    ws.emit('message', request(2), false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual(['servers.list']);
    expect(ws.sent).toHaveLength(1);
  });
});
