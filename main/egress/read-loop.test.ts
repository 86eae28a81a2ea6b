import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestProxy } from '../../test/egress/test-proxy';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A target that answers, once the client half-closes, the hash of all it received. */
async function hashingTarget(): Promise<number> {
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    const hash = createHash('sha256');
    s.on('data', (d: Buffer) => hash.update(d));
    s.on('end', () => s.end(hash.digest('hex')));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

async function proxy(): Promise<number> {
  const p = await startTestProxy();
  closers.push(p.close);
  return p.port;
}

/** Uploads `body` through a CONNECT tunnel (its first bytes in the CONNECT's own packet). */
function upload(port: number, target: number, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      s.write(
        Buffer.concat([
          Buffer.from(`CONNECT t.test:${target} HTTP/1.1\r\n\r\n`),
          body.subarray(0, 1000),
        ]),
      );
      s.end(body.subarray(1000));
    });
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('end', () => resolve(out.slice(out.indexOf('\r\n\r\n') + 4)));
    s.on('error', reject);
  });
}

describe('uploads through the proxy read into reused buffers', () => {
  it('a CONNECT upload arrives byte for byte, bytes sent with the CONNECT first, then the half-close', async () => {
    const body = randomBytes(9 * 1024 * 1024 + 123);
    const answer = await upload(await proxy(), await hashingTarget(), body);
    expect(answer).toBe(sha(body));
  });

  it('twelve uploads at once (more than the large buffers the proxy lends) all arrive intact', async () => {
    const port = await proxy();
    const target = await hashingTarget();
    const bodies = Array.from({ length: 12 }, () => randomBytes(3 * 1024 * 1024 + 7));
    const answers = await Promise.all(bodies.map((b) => upload(port, target, b)));
    expect(answers).toEqual(bodies.map(sha));
  });
});
