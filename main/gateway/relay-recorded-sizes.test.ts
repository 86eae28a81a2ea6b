/**
 * A peer chooses the size of what it sends: a call's arguments, a request's params and an error's
 * message may each be megabytes. The audit log records them whole up to 64 KiB of JSON (an
 * error's text up to 4,096 characters); past that, a row keeps the size, the SHA-256 and the first
 * characters, so that a server answering every call with an error of megabytes, or flooding the
 * client with large requests, does not write megabytes a row. What is passed on is never cut.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { wiredRelay } from '../../test/helpers/line-relay';
import { ApprovalInbox } from './approval-inbox';
import type { ToolGate } from './relay';
import { MAX_RECORDED_TEXT, MAX_RECORDED_VALUE_BYTES, recordedValue } from './wire-values';

const BIG = 'x'.repeat(1_000_000);

const gate: ToolGate = {
  filterList: (tools) => Promise.resolve(tools),
  checkCall: () => ({ allow: true }),
};

function wired() {
  const events: AuditEventInput[] = [];
  return { ...wiredRelay(gate, (e) => void events.push(e)), events };
}

const field = (e: AuditEventInput | undefined, name: string) =>
  (e as Record<string, unknown> | undefined)?.[name];

describe('what a peer sends large', () => {
  it("a call's arguments are recorded by size, hash and head; the server gets them whole", async () => {
    const w = wired();
    const args = { text: BIG };
    const call = { name: 'write', arguments: args };
    await w.fromClient(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }),
    );
    expect(JSON.parse(w.toServer())).toMatchObject({ params: { arguments: args } });
    const json = JSON.stringify(args);
    expect(field(w.events[0], 'args')).toEqual({
      wardenCut: {
        bytes: json.length,
        sha256: createHash('sha256').update(json).digest('hex'),
        head: json.slice(0, 1024),
      },
    });
    expect(JSON.stringify(w.events).length).toBeLessThan(3000);
  });

  it("an error's message is recorded cut, saying how much was left out", async () => {
    const w = wired();
    await w.fromClient('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}');
    w.toServer();
    const error = { code: -32000, message: BIG };
    await w.fromServer(JSON.stringify({ jsonrpc: '2.0', id: 1, error }));
    expect(JSON.parse(w.toClient())).toMatchObject({ error });
    const recorded = field(w.events[1], 'error') as { message: string };
    expect(recorded.message).toBe(
      `${'x'.repeat(MAX_RECORDED_TEXT)}… (${BIG.length - MAX_RECORDED_TEXT} more characters)`,
    );
  });

  it("the server's requests are recorded by size, and the client's error cut", async () => {
    const w = wired();
    const params = { messages: [{ role: 'user', content: { type: 'text', text: BIG } }] };
    const ask = { jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params };
    await w.fromServer(JSON.stringify(ask));
    expect(JSON.parse(w.toClient())).toMatchObject({ params });
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 7, error: { code: 1, message: BIG } }));
    expect(JSON.parse(w.toServer())).toMatchObject({ error: { message: BIG } });
    expect(field(w.events[0], 'params')).toMatchObject({
      wardenCut: { bytes: JSON.stringify(params).length },
    });
    expect(JSON.stringify(w.events).length).toBeLessThan(8000);
  });

  it('a call held for approval is recorded by size; the inbox shows it whole', async () => {
    const rows: AuditEventInput[] = [];
    const inbox = new ApprovalInbox((e) => void rows.push(e));
    const args = { text: BIG };
    const decided = inbox.request({
      server: 's',
      instance: 's#1',
      tool: 't',
      args,
      timeoutSeconds: 60,
    });
    expect(inbox.list()[0]?.args).toBe(args);
    expect(field(rows[0], 'args')).toMatchObject({
      wardenCut: { bytes: JSON.stringify(args).length },
    });
    await inbox.decide(inbox.list()[0]!.id, 'deny');
    expect(await decided).toBe(false);
  });

  it('keeps what is small whole, and measures what came without a size', () => {
    const small = { path: '/tmp/a', lines: [1, 2, 3] };
    expect(recordedValue(small, 80)).toBe(small);
    expect(recordedValue(small)).toBe(small);
    const edge = { t: 'y'.repeat(MAX_RECORDED_VALUE_BYTES - 8) };
    expect(recordedValue(edge, MAX_RECORDED_VALUE_BYTES + 100)).toBe(edge);
    expect(recordedValue({ t: `${edge.t}y` })).toMatchObject({
      wardenCut: { bytes: MAX_RECORDED_VALUE_BYTES + 1 },
    });
    // A cut never leaves half a surrogate pair.
    const emoji = { t: `${'z'.repeat(1024 - 7)}😀${'z'.repeat(MAX_RECORDED_VALUE_BYTES)}` };
    const head = (recordedValue(emoji) as { wardenCut: { head: string } }).wardenCut.head;
    expect(head).toHaveLength(1023);
    expect(head).not.toMatch(/[\uD800-\uDBFF]$/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(recordedValue(loop)).toEqual({ wardenCut: { reason: 'not JSON' } });
  });
});
