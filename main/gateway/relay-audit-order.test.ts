/**
 * When the relay records what it relays: an answer that ends the chunk it came in is written to
 * the client before it is recorded (the record waits for the end of the turn, never for another
 * turn), and the log keeps the order the relay and the gate saw things in, whether answers come
 * one per read or several in one.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { LineTransport } from './line-transport';
import type { ToolGate } from './relay';
import { lineRelay } from '../../test/helpers/line-relay';

const call = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{}}}\n`;
const answer = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"echo ${id}"}]}}\n`;

/** What the relay recorded, each with what the client had been written at that moment. */
interface Recorded {
  what: string;
  written: string;
}

/** A relay between line transports; the gate records a note per result it checks. */
function wired() {
  const clientIn = new PassThrough();
  const serverIn = new PassThrough();
  const serverOut = new PassThrough();
  const written: string[] = [];
  const clientOut = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
    writev(chunks, done) {
      written.push(chunks.map((c) => String(c.chunk)).join(''));
      done();
    },
  });
  const client = new LineTransport(clientIn, clientOut);
  const upstream = new LineTransport(serverOut, serverIn);
  const log: Recorded[] = [];
  const audit = (event: AuditEventInput) => {
    const id = 'requestId' in event ? String(event.requestId) : '';
    log.push({ what: `${event.kind} ${id}`.trim(), written: written.join('') });
  };
  const gate: ToolGate = {
    filterList: (tools) => Promise.resolve(tools),
    checkCall: () => ({ allow: true }),
    checkResult: (_tool, _result, id) => {
      audit({ kind: 'tool.drift', outcome: 'info', server: 's', detail: `result ${id}` } as never);
      log[log.length - 1]!.what = `gate ${String(id)}`;
      return { kind: 'pass' };
    },
  };
  const relay = lineRelay(client, upstream, gate, audit);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { relay, clientIn, serverOut, log, turn };
}

describe('relay records', () => {
  it('write an answer that ends its chunk before recording it, in the same turn', async () => {
    const w = wired();
    w.clientIn.write(call(1));
    await w.turn();
    w.serverOut.write(answer(1));
    await w.turn();
    const response = w.log.find((r) => r.what === 'mcp.response 1');
    expect(response?.written).toContain('"echo 1"');
    // The gate's check of the result ran, and was recorded, before the answer was written.
    expect(w.log.find((r) => r.what === 'gate 1')?.written).toBe('');
  });

  it('keep the order of calls, checks and answers, one per read or several in one', async () => {
    const w = wired();
    w.clientIn.write(call(1) + call(2));
    await w.turn();
    w.serverOut.write(answer(1) + answer(2));
    await w.turn();
    w.clientIn.write(call(3));
    await w.turn();
    w.serverOut.write(answer(3));
    w.clientIn.write(call(4));
    await w.turn();
    w.serverOut.write(answer(4));
    await w.turn();
    expect(w.log.map((r) => r.what)).toEqual([
      'mcp.request 1',
      'mcp.request 2',
      'gate 1',
      'mcp.response 1',
      'gate 2',
      'mcp.response 2',
      'mcp.request 3',
      'gate 3',
      'mcp.response 3',
      'mcp.request 4',
      'gate 4',
      'mcp.response 4',
    ]);
  });

  it('lose no answer when the session closes in the turn it was written', async () => {
    const w = wired();
    w.clientIn.write(call(1));
    await w.turn();
    w.serverOut.write(answer(1));
    w.serverOut.once('data', () => w.relay.close());
    await w.turn();
    expect(w.log.map((r) => r.what)).toContain('mcp.response 1');
  });
});
