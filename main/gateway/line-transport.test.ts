import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport, type RefusedMessage } from './line-transport';

function transport(maxBytes = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const t = new LineTransport(input, output, maxBytes);
  const got: JSONRPCMessage[] = [];
  const refused: RefusedMessage[] = [];
  t.onmessage = (m) => void got.push(m);
  t.onrefused = (r) => void refused.push(r);
  return { t, input, got, refused };
}

const note = (n: number) =>
  `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { n } })}\n`;

describe('LineTransport', () => {
  it('refuses a line nested past the depth limit unparsed, with its id, and goes on', async () => {
    const { t, input, got, refused } = transport(1024 * 1024);
    await t.start();
    input.write(`{"jsonrpc":"2.0","id":7,"result":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`);
    input.write(note(1));
    expect(refused).toEqual([
      expect.objectContaining({ limit: 'messageDepth', max: 64, id: 7, hasAnswer: true }),
    ]);
    expect(got).toHaveLength(1);
  });

  it('refuses a line of more arrays and objects than the limit unparsed, and goes on', async () => {
    // 16 MB of `{},` would take over 300 MB once parsed; the limit is 1,000,000 of them.
    const { t, input, got, refused } = transport(8 * 1024 * 1024);
    await t.start();
    input.write(`{"jsonrpc":"2.0","id":8,"result":{"a":[${'{},'.repeat(1_000_000)}{}]}}\n`);
    input.write(`{"jsonrpc":"2.0","id":9,"result":{"a":[${'{},'.repeat(999_996)}{}]}}\n`);
    expect(refused).toEqual([
      expect.objectContaining({ limit: 'messageContainers', max: 1_000_000, id: 8 }),
    ]);
    expect(got.map((m) => (m as { id: number }).id)).toEqual([9]);
  });

  it('stops delivering at pause(), even within one chunk, and delivers the rest in order on resume()', async () => {
    const { t, input, got } = transport();
    await t.start();
    t.onmessage = (m) => {
      got.push(m);
      if (got.length === 2) t.pause();
    };
    input.write(note(1) + note(2) + note(3) + note(4));
    expect(got).toHaveLength(2);
    expect(t.bufferedBytes()).toBeGreaterThan(0);
    t.resume();
    expect(got.map((m) => (m as unknown as { params: { n: number } }).params.n)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('skips an oversized line without holding it, then resynchronises', async () => {
    const { t, input, got, refused } = transport(1024);
    await t.start();
    input.write(`{"jsonrpc":"2.0","result":{"x":"${'y'.repeat(5000)}`);
    expect(t.bufferedBytes()).toBeLessThanOrEqual(1024);
    input.write(`"},"id":3}\n${note(5)}`);
    expect(refused).toEqual([expect.objectContaining({ limit: 'messageBytes', id: 3 })]);
    expect(got).toHaveLength(1);
  });

  it('hands the messages sent in one turn to the stream in one write, in order', async () => {
    const writes: string[][] = [];
    const output = new Writable({
      writev(chunks, done) {
        writes.push(chunks.map((c) => String(c.chunk)));
        done();
      },
      write(chunk, _encoding, done) {
        writes.push([String(chunk)]);
        done();
      },
    });
    const t = new LineTransport(new PassThrough(), output);
    for (const n of [1, 2, 3])
      void t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[note(1), note(2), note(3)]]);
  });

  it('with `oninputend`, an input that ends and closes leaves the output to the session', async () => {
    const { t, input } = transport();
    const output = (t as unknown as { output: PassThrough }).output;
    let ended = 0;
    let closed = 0;
    t.oninputend = () => ended++;
    t.onclose = () => closed++;
    await t.start();
    input.end(note(1));
    input.resume();
    await new Promise((resolve) => input.once('close', resolve));
    expect([ended, closed]).toEqual([1, 0]);
    await t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { n: 2 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(output.read())).toBe(note(2));
    await t.close();
    expect(closed).toBe(1);
    expect(output.writableEnded).toBe(false);
  });

  it('without `oninputend`, the end of the input closes it; `endsOutput` ends the output', async () => {
    const { t, input } = transport();
    const output = (t as unknown as { output: PassThrough }).output;
    t.endsOutput = true;
    let closed = 0;
    t.onclose = () => closed++;
    await t.start();
    input.end();
    input.resume();
    await new Promise((resolve) => input.once('close', resolve));
    expect(closed).toBe(1);
    expect(output.writableEnded).toBe(true);
  });
});
