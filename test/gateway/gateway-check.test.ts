/**
 * The ownership challenge of `warden clients connect` (main/gateway/gateway-check.ts) against a
 * real HTTP front door: Warden's gateway passes it; a listener holding the checked port fails it,
 * even when it passes the challenge on to Warden's gateway listening on another port. The door's
 * Host check names the one address it takes.
 */
import { randomBytes } from 'node:crypto';
import { type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerProof } from '../../main/gateway/client-tokens';
import { checkGateway } from '../../main/gateway/gateway-check';
import { type HttpFrontDoor, startHttpFrontDoor } from '../../main/gateway/http-front-door';
import { freePort } from '../egress/egress-harness';

const ownerKey = randomBytes(32).toString('base64url');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function gateway(): Promise<HttpFrontDoor> {
  const door = await startHttpFrontDoor({
    port: 0,
    isToken: () => Promise.resolve(false),
    ownerProof: (port, nonce) => Promise.resolve(ownerProof(ownerKey, port, nonce)),
    maxBodyBytes: 1024,
    hasServer: () => false,
    openSession: () => Promise.reject(new Error('no sessions here')),
  });
  cleanup.push(() => door.close());
  return door;
}

/** A listener that passes every request on to `port`, Host header rewritten to match it. */
async function relayTo(port: number): Promise<number> {
  const relay: Server = createServer((req, res) => {
    const onward = request(
      {
        host: '127.0.0.1',
        port,
        path: req.url,
        method: req.method,
        headers: { host: `127.0.0.1:${port}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(onward);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => relay.close(() => r())));
  return (relay.address() as AddressInfo).port;
}

describe('the gateway ownership check', () => {
  it("passes Warden's gateway on the port it asks", async () => {
    const door = await gateway();
    expect(await checkGateway(door.port, ownerKey)).toEqual({ kind: 'warden', port: door.port });
  });

  it('fails the same gateway for a home with another owner key', async () => {
    const door = await gateway();
    const other = randomBytes(32).toString('base64url');
    expect(await checkGateway(door.port, other)).toMatchObject({
      kind: 'foreign',
      port: door.port,
    });
  });

  it("fails a listener that passes the challenge on to Warden's gateway on another port", async () => {
    const door = await gateway();
    const relay = await relayTo(door.port);
    // The relay does reach the gateway: the answer it passes back is a proof, for the wrong port.
    expect(await checkGateway(relay, ownerKey)).toMatchObject({ kind: 'foreign', port: relay });
  });

  it('refuses a request whose Host names anything but the gateway, saying what it must be', async () => {
    const door = await gateway();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: door.port,
          path: '/mcp/x',
          headers: { host: `rebound.example:${door.port}` },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject).end();
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(`Host must be 127.0.0.1:${door.port}`);
  });

  it('says nothing runs where nothing listens', async () => {
    const port = await freePort();
    expect(await checkGateway(port, ownerKey)).toEqual({ kind: 'not-running', port });
  });
});
