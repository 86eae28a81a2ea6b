/**
 * The channel protocol on its own: frames, credit windows (a stalled stream holds at most one
 * window and does not block others), and every kind of malformed input closing the channel
 * with a violation instead of throwing.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FrameReader,
  FrameType,
  WINDOW_BYTES,
  encodeOpen,
  frameHeader,
} from '../../main/sandbox-init/mux-frames';
import { MuxSession } from '../../main/sandbox-init/mux-session';
import type { MuxStream } from '../../main/sandbox-init/mux-stream';

const cleanup: (() => void)[] = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

async function socketPair(): Promise<[net.Socket, net.Socket]> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const a = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const b = await accepted;
  server.close();
  cleanup.push(() => (a.destroy(), b.destroy()));
  return [a, b];
}

async function sessions(): Promise<{ inside: MuxSession; host: MuxSession; raw: net.Socket }> {
  const [a, b] = await socketPair();
  const inside = new MuxSession(a, { role: 'sandbox' });
  const host = new MuxSession(b, { role: 'host', maxStreams: 4 });
  return { inside, host, raw: a };
}

function frame(id: number, type: number, payload?: Buffer): Buffer {
  const body = payload ?? Buffer.alloc(0);
  return Buffer.concat([frameHeader(id, type as FrameType, body.length), body]);
}

describe('frame reader', () => {
  it('parses frames split at every byte boundary; DATA arrives in pieces, control frames whole', () => {
    const got: [number, number, string][] = [];
    const r = new FrameReader(
      (id, t, p) => {
        const last = got[got.length - 1];
        if (t === FrameType.Data && last && last[0] === id && last[1] === t)
          last[2] += p.toString();
        else got.push([id, t, p.toString()]);
      },
      (m) => got.push([0, 0, m]),
    );
    const window = Buffer.alloc(4);
    window.writeUInt32BE(77);
    const bytes = Buffer.concat([
      frame(1, FrameType.Data, Buffer.from('hello')),
      frame(1, FrameType.Window, window),
      frame(2, FrameType.End),
    ]);
    for (const b of bytes) r.push(Buffer.from([b]));
    expect(got).toEqual([
      [1, FrameType.Data, 'hello'],
      [1, FrameType.Window, window.toString()],
      [2, FrameType.End, ''],
    ]);
  });

  it('rejects unknown types and oversized frames', () => {
    const errors: string[] = [];
    new FrameReader(
      () => undefined,
      (m) => errors.push(m),
    ).push(frame(1, 99));
    new FrameReader(
      () => undefined,
      (m) => errors.push(m),
    ).push(frameHeader(1, FrameType.Data, 10_000_000));
    expect(errors).toEqual([
      'unknown frame type 99',
      'frame of 10000000 bytes exceeds 65536 for type 4',
    ]);
  });
});

describe('mux session', () => {
  it('a stalled stream holds at most one window and does not block another stream', async () => {
    const { inside, host } = await sessions();
    const accepted: MuxStream[] = [];
    host.on('open', (s: MuxStream) => {
      host.accept(s);
      accepted.push(s);
    });
    const stalled = inside.open('a.test', 1);
    const busy = inside.open('b.test', 2);
    await new Promise((r) => busy.once('opened', r));
    const total = 32 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 7);
    let stalledWritten = 0;
    const fill = (): void => {
      while (stalledWritten < 8 * WINDOW_BYTES && stalled.write(chunk))
        stalledWritten += chunk.length;
    };
    fill();
    stalled.on('drain', fill);
    // The host never reads the stalled stream; it reads the busy one as fast as it can.
    let received = 0;
    const done = new Promise<void>((resolve) => {
      accepted[1]!.on('data', (d: Buffer) => {
        received += d.length;
        if (received === total) resolve();
      });
    });
    accepted[0]!.pause();
    for (let sent = 0; sent < total; sent += chunk.length) {
      if (!busy.write(chunk)) await new Promise((r) => busy.once('drain', r));
    }
    await done;
    expect(received).toBe(total);
    expect(accepted[0]!.readableLength).toBeLessThanOrEqual(WINDOW_BYTES);
    expect(accepted[0]!.bytesIn).toBeLessThanOrEqual(WINDOW_BYTES);
  });

  it('half-close in each direction and refusal reach the other side', async () => {
    const { inside, host } = await sessions();
    host.on('open', (s: MuxStream, h: string) => {
      if (h === 'no.test') return host.refuse(s, 1, 'nope');
      host.accept(s);
      s.on('data', (d: Buffer) => s.write(d)).on('end', () => s.end('bye'));
    });
    const refusal = await new Promise((r) => inside.open('no.test', 1).once('refused', r));
    expect(refusal).toEqual({ code: 1, reason: 'nope' });
    const s = inside.open('yes.test', 2);
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.end('ping');
    await new Promise((r) => s.once('end', r));
    expect(text).toBe('pingbye');
  });

  it('refuses streams beyond the limit without closing the channel', async () => {
    const { inside, host } = await sessions();
    const limited: string[] = [];
    host.on('open', (s: MuxStream) => host.accept(s));
    host.on('limit', (h: string) => limited.push(h));
    const streams = Array.from({ length: 6 }, (_, i) => inside.open(`h${i}.test`, 80));
    const outcomes = await Promise.all(
      streams.map(
        (s) =>
          new Promise((r) => s.once('opened', () => r('ok')).once('refused', () => r('limit'))),
      ),
    );
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'limit', 'limit']);
    expect(limited).toEqual(['h4.test', 'h5.test']);
    expect(host.isClosed).toBe(false);
  });

  it.each([
    ['random bytes', () => Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
    ['oversized frame', () => frameHeader(1, FrameType.Data, 1 << 30)],
    ['data on a stream never opened', () => frame(7, FrameType.Data, Buffer.from('x'))],
    [
      'open with a reused id',
      () =>
        Buffer.concat([
          frame(3, FrameType.Open, encodeOpen('a.b', 1)),
          frame(3, FrameType.Open, encodeOpen('a.b', 1)),
        ]),
    ],
    ['malformed open', () => frame(1, FrameType.Open, Buffer.from([0, 0]))],
    [
      'data before the host accepted',
      () =>
        Buffer.concat([
          frame(1, FrameType.Open, encodeOpen('hold.test', 1)),
          frame(1, FrameType.Data, Buffer.from('x')),
        ]),
    ],
    ['open reply sent to the host', () => frame(1, FrameType.OpenOk)],
    [
      'bad window frame',
      () =>
        Buffer.concat([
          frame(1, FrameType.Open, encodeOpen('a.b', 1)),
          frame(1, FrameType.Window, Buffer.from([1])),
        ]),
    ],
  ])('%s: the channel is closed with a violation, nothing throws', async (_name, bytes) => {
    const [a, b] = await socketPair();
    const host = new MuxSession(b, { role: 'host' });
    const violations: string[] = [];
    host.on('violation', (m: string) => violations.push(m));
    host.on('open', () => undefined);
    a.write(bytes());
    await new Promise((r) => host.once('close', r));
    expect(violations).toHaveLength(1);
  });

  it('a peer exceeding its window is a violation', async () => {
    const [a, b] = await socketPair();
    const host = new MuxSession(b, { role: 'host' });
    const violations: string[] = [];
    host.on('violation', (m: string) => violations.push(m));
    host.on('open', (s: MuxStream) => {
      host.accept(s);
      s.pause();
    });
    a.write(frame(1, FrameType.Open, encodeOpen('a.b', 1)));
    const big = Buffer.alloc(65536);
    for (let i = 0; i <= WINDOW_BYTES / big.length; i++) a.write(frame(1, FrameType.Data, big));
    await new Promise((r) => host.once('close', r));
    expect(violations).toEqual(['stream 1 exceeded its window']);
  });

  it('a peer that floods opens but never reads replies is cut off, memory bounded', async () => {
    const [a, b] = await socketPair();
    const host = new MuxSession(b, { role: 'host', maxStreams: 1, maxQueuedBytes: 256 * 1024 });
    const violations: string[] = [];
    host.on('violation', (m: string) => violations.push(m));
    host.on('open', () => undefined);
    a.pause();
    const batch: Buffer[] = [];
    for (let id = 1; id <= 400_000; id++)
      batch.push(frame(id, FrameType.Open, encodeOpen('x.test', 1)));
    a.write(Buffer.concat(batch));
    await new Promise((r) => host.once('close', r));
    expect(violations).toEqual(['the peer does not read the channel']);
  });
});
