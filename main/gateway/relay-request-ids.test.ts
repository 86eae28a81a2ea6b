/**
 * A request whose id cannot pass through Warden as it was sent, or that reuses the id of one still
 * waiting, is refused back to whoever sent it (JSON-RPC's Invalid Request) and recorded, never
 * passed on: its answer would otherwise come back under another id, so that the sender waits for
 * ever, or be taken for the answer to another request, by the client and in the audit log.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { wiredRelay } from '../../test/helpers/line-relay';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Relay, type CallVerdict, type RelayOptions, type ToolGate } from './relay';

const gate: ToolGate = {
  filterList: (tools) => Promise.resolve(tools),
  checkCall: () => ({ allow: true }),
};

function wired(g = gate, relay: Partial<RelayOptions> = {}) {
  const events: AuditEventInput[] = [];
  return { ...wiredRelay(g, (e) => void events.push(e), { relay }), events };
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A tool call with `id` as JSON text, so that the test writes ids as a client could. */
const call = (id: string, tool: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{}}}`;
const sampling = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"sampling/createMessage","params":{"messages":[]}}`;
const IN_USE = 'Warden: a request with this id still waits for its answer';

describe('a request of the client that reuses the id of one waiting', () => {
  it('is refused to the client; the first call is answered and recorded as its own', async () => {
    const w = wired();
    await w.fromClient(call('7', 'read'));
    await w.fromClient(call('7', 'delete_all'));
    expect(lines(w.toServer())).toHaveLength(1);
    expect(w.toServer()).not.toContain('delete_all');
    expect(lines(w.toClient())).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: IN_USE } },
    ]);
    await w.fromServer('{"jsonrpc":"2.0","id":7,"result":{"content":[]}}');
    expect(lines(w.toClient()).at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [] } });
    // Not an answer to id 7 in the log, which would be paired with the first call.
    expect(w.events.map((e) => [e.kind, e.outcome, 'tool' in e ? e.tool : '-'])).toEqual([
      ['mcp.request', 'info', 'read'],
      ['limit.hit', 'refused', '-'],
      ['mcp.response', 'ok', 'read'],
    ]);
    expect(w.events[1]).toMatchObject({
      limit: 'requestId',
      detail: `the client's tools/call request with id 7 was refused: ${IN_USE.slice(8)}`,
    });
    // Answered, the id is free again.
    await w.fromClient(call('7', 'write'));
    expect(lines(w.toServer()).at(-1)).toMatchObject({ id: 7, params: { name: 'write' } });
  });

  it('is refused while the first waits for the user, whose approval sends the first', async () => {
    const approvals: ((v: CallVerdict) => void)[] = [];
    const w = wired({ ...gate, checkCall: () => new Promise((r) => approvals.push(r)) });
    await w.fromClient(call('"a"', 'write'));
    await w.fromClient(call('"a"', 'delete_all'));
    expect(approvals).toHaveLength(1);
    expect(lines(w.toClient())).toMatchObject([{ id: 'a', error: { code: -32600 } }]);
    approvals[0]!({ allow: true });
    await w.settle();
    expect(lines(w.toServer())).toMatchObject([{ id: 'a', params: { name: 'write' } }]);
  });
});

describe('a request of the client that reuses the id of one it cancelled', () => {
  const cancel = (id: string) =>
    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`;

  it('is refused while the server may still answer the first; the late answer goes nowhere', async () => {
    const dropped: string[] = [];
    const w = wired(gate, { onDropped: (what) => dropped.push(what) });
    await w.fromClient(call('5', 'read'));
    await w.fromClient(cancel('5'));
    await w.fromClient(call('5', 'delete_all'));
    expect(lines(w.toServer())).toMatchObject([
      { id: 5, params: { name: 'read' } },
      { method: 'notifications/cancelled' },
    ]);
    expect(lines(w.toClient())).toEqual([
      { jsonrpc: '2.0', id: 5, error: { code: -32600, message: IN_USE } },
    ]);
    // The server answers the cancelled call late: the client is not told it, under any call.
    await w.fromServer(
      '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"late"}]}}',
    );
    expect(w.toClient()).not.toContain('late');
    expect(dropped).toEqual(['an answer with id 5 to no request in flight']);
    // Its answer come, the id is free again.
    await w.fromClient(call('5', 'write'));
    expect(lines(w.toServer()).at(-1)).toMatchObject({ id: 5, params: { name: 'write' } });
  });

  it('is passed on when the cancelled call never reached the server', async () => {
    const approvals: ((v: CallVerdict) => void)[] = [];
    const w = wired({ ...gate, checkCall: () => new Promise((r) => approvals.push(r)) });
    await w.fromClient(call('"b"', 'write'));
    await w.fromClient(cancel('"b"'));
    await w.fromClient(call('"b"', 'read'));
    expect(approvals).toHaveLength(2);
    expect(w.toClient()).toBe('');
  });
});

describe('a request id that would not come back as it was sent', () => {
  // Read as a double: 12345678901234567890 becomes …000, 2^53 + 1 becomes 2^53, 1e400 Infinity
  // (written out as null). A client waiting for its own id would never see the answer.
  it.each([
    '12345678901234567890',
    '9007199254740993',
    '1e400',
    '-1e400',
    'true',
    '{"n":1}',
    '[1]',
    // A request all the same, not a notification: it would pass every check unrecorded.
    'null',
  ])('%s from the client is refused under a null id, never passed on', async (id) => {
    const w = wired();
    await w.fromClient(call(id, 'read'));
    expect(w.toServer()).toBe('');
    expect(lines(w.toClient())).toMatchObject([
      { jsonrpc: '2.0', id: null, error: { code: -32600 } },
    ]);
    expect(w.events).toMatchObject([{ kind: 'limit.hit', outcome: 'refused', limit: 'requestId' }]);
    expect(w.relay.settled()).toBe(true);
  });

  it('ids that come back as sent pass: safe integers, fractions, strings', async () => {
    const w = wired();
    const ids = ['9007199254740991', '-3', '0', '1.5', '1e2', `"${'i'.repeat(200)}"`];
    for (const id of ids) await w.fromClient(call(id, 'read'));
    const sent = lines(w.toServer()).map((m) => m.id);
    expect(sent).toEqual(ids.map((id) => JSON.parse(id) as unknown));
    for (const id of ids) await w.fromServer(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
    expect(lines(w.toClient()).map((m) => m.id)).toEqual(sent);
  });

  it('a string id over 200 characters is refused under it, and recorded cut', async () => {
    const w = wired();
    const id = 'i'.repeat(100_000);
    await w.fromClient(call(`"${id}"`, 'read'));
    expect(w.toServer()).toBe('');
    expect(lines(w.toClient())).toMatchObject([{ id, error: { code: -32600 } }]);
    expect(JSON.stringify(w.events).length).toBeLessThan(1000);
    expect(w.relay.settled()).toBe(true);
  });

  it('from the server, is refused to it and recorded; the client is never asked', async () => {
    const w = wired();
    const long = 's'.repeat(100_000);
    await w.fromServer(sampling('12345678901234567890'));
    await w.fromServer(sampling(`"${long}"`));
    expect(w.toClient()).toBe('');
    expect(lines(w.toServer())).toMatchObject([
      { id: null, error: { code: -32600 } },
      { id: long, error: { code: -32600 } },
    ]);
    expect(w.events).toMatchObject([
      { kind: 'mcp.server-request', outcome: 'refused', requestId: null },
      { kind: 'mcp.server-request', outcome: 'refused', requestId: `${long.slice(0, 200)}…` },
    ]);
    expect(JSON.stringify(w.events).length).toBeLessThan(1500);
    // Refused, the long id is not waited for: a client answering it is not recorded.
    await w.fromClient(`{"jsonrpc":"2.0","id":"${long}","result":{}}`);
    expect(w.events.filter((e) => e.kind === 'mcp.client-answer')).toEqual([]);
  });

  it('from the server, a null id is refused, recorded, and never reaches the client', async () => {
    const w = wired();
    await w.fromServer(sampling('null'));
    await w.fromServer('{"jsonrpc":"2.0","id":null,"method":"roots/list"}');
    expect(w.toClient()).toBe('');
    expect(lines(w.toServer())).toMatchObject([
      { id: null, error: { code: -32600 } },
      { id: null, error: { code: -32600 } },
    ]);
    expect(w.events).toMatchObject([
      { kind: 'mcp.server-request', outcome: 'refused', requestId: null },
      { kind: 'mcp.server-request', outcome: 'refused', requestId: null },
    ]);
  });

  it('from the server, is refused before the roots mediator answers under it', async () => {
    const taken: unknown[] = [];
    const intercept = { fromServer: (m: unknown) => taken.push(m) > 0, fromClient: () => false };
    const w = wired(gate, { intercept });
    await w.fromServer('{"jsonrpc":"2.0","id":1e400,"method":"roots/list"}');
    expect(taken).toEqual([]);
    expect(lines(w.toServer())).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it('from the server, reusing the id of one the client is to answer, is refused', async () => {
    const w = wired();
    await w.fromServer(sampling('3'));
    await w.fromServer(sampling('3'));
    expect(lines(w.toClient())).toHaveLength(1);
    expect(lines(w.toServer())).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: IN_USE } },
    ]);
  });
});

describe('refusals to a client that does not read them', () => {
  /** A side whose writes never finish (its reader stopped): what is sent to it waits. */
  const stalled = (): Transport => ({
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: () => new Promise<void>(() => undefined),
  });

  /** A relay of 1 MB's budget between a client and a server that read nothing. */
  function stalledRelay(g: ToolGate) {
    const faults: string[] = [];
    const client = stalled();
    new Relay({
      server: 's',
      instance: 's#1',
      client,
      upstream: stalled(),
      gate: g,
      audit: () => undefined,
      redact: (v) => v,
      limits: { memoryBudgetBytes: 1_000_000 },
      onFault: (reason) => void faults.push(reason),
    }).attach();
    return { client, faults };
  }

  it('count against the memory budget, which ends the session before they grow far', () => {
    const { client, faults } = stalledRelay(gate);
    // Each refusal echoes its id of 300 kB: ten would hold 3 MB, unseen, without the count.
    for (let i = 0; i < 10 && faults.length === 0; i++) {
      const id = `${i}`.padEnd(300_000, 'i');
      client.onmessage?.({ jsonrpc: '2.0', id, method: 'ping' });
    }
    expect(faults).toEqual([expect.stringContaining('memory budget of 1 MB')]);
  });

  it('count when the gate refuses, naming what the client sent', () => {
    const { client, faults } = stalledRelay({
      ...gate,
      checkCall: (tool) => ({ allow: false, message: `the tool "${tool}" is disabled` }),
    });
    for (let i = 0; i < 10 && faults.length === 0; i++) {
      const name = `${i}`.padEnd(300_000, 'n');
      client.onmessage?.({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name } });
    }
    expect(faults).toEqual([expect.stringContaining('memory budget of 1 MB')]);
  });
});
