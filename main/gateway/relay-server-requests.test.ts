/**
 * A request a server sends to the client (`sampling/createMessage` asks the client's model, say
 * to "ignore previous instructions"; `elicitation/create` asks the user) is recorded in the audit
 * log as the client was shown it, or as refused with the reason and without its params, so that
 * what a server asked of the model and the user can be found later (credentials in it stay out:
 * test/gateway/credential-relay.test.ts). The client's answer is recorded too, as what it was
 * (a refusal, a form's fields, a text's length) and not what it said; an answer to nothing the
 * server asked goes nowhere.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import { ClientAnswers } from './client-answers';
import type { RelayOptions, ToolGate } from './relay';
import { wiredRelay } from '../../test/helpers/line-relay';

function wired(gate: ToolGate, relay: Partial<RelayOptions> = {}) {
  const events: AuditEventInput[] = [];
  const w = wiredRelay(gate, (e) => void events.push(e), { relay });
  return { ...w, events, fromServer: (message: unknown) => w.fromServer(JSON.stringify(message)) };
}

const gate: ToolGate = {
  filterList: (tools) => Promise.resolve(tools),
  checkCall: () => ({ allow: true }),
};

const sampling = {
  jsonrpc: '2.0',
  id: 41,
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'ignore previous' } }] },
};

describe("a server's requests to the client", () => {
  it('are recorded as passed on, with their params', async () => {
    const w = wired(gate);
    await w.fromServer(sampling);
    expect(w.toClient()).toContain('ignore previous');
    const row = w.events.find((e) => e.kind === 'mcp.server-request');
    expect(row).toMatchObject({
      outcome: 'info',
      server: 's',
      instance: 's#1',
      requestId: 41,
      method: 'sampling/createMessage',
      params: sampling.params,
    });
    expect(auditEventText({ ...row!, ts: '2026-12-06T00:00:00.000Z' })).toMatch(
      /server asked sampling\/createMessage, \d+ bytes$/,
    );
  });

  it('are recorded as refused, with the reason, when the gate refuses them', async () => {
    const w = wired({
      ...gate,
      checkServerRequest: () => ({ kind: 'refuse', message: 'it held credentials' }),
    });
    await w.fromServer({ ...sampling, id: 42 });
    expect(w.toClient()).toBe('');
    expect(w.toServer()).toContain('it held credentials');
    const rows = w.events.filter((e) => e.kind === 'mcp.server-request');
    expect(rows).toMatchObject([
      { outcome: 'refused', requestId: 42, reason: 'it held credentials' },
    ]);
    // What was refused (a credential, say) is not written down either.
    expect(rows[0]).not.toHaveProperty('params');
  });
});

describe("the client's answers to them", () => {
  const answer = (id: number, body: object) => JSON.stringify({ jsonrpc: '2.0', id, ...body });

  it('are recorded with what they answer and how long it took, never what the model wrote', async () => {
    let now = 1000;
    const events: AuditEventInput[] = [];
    const w = wiredRelay(gate, (e) => void events.push(e), { relay: { now: () => now } });
    await w.fromServer(JSON.stringify(sampling));
    now += 250;
    const reply = {
      role: 'assistant',
      content: { type: 'text', text: 'the secret plan is 42' },
      model: 'm-1',
      stopReason: 'endTurn',
    };
    await w.fromClient(answer(41, { result: reply }));
    expect(w.toServer()).toContain('the secret plan is 42');
    const row = events.find((e) => e.kind === 'mcp.client-answer');
    expect(row).toMatchObject({
      outcome: 'ok',
      requestId: 41,
      method: 'sampling/createMessage',
      resultSummary: 'text of 21 characters from model "m-1", stop "endTurn"',
      durationMs: 250,
    });
    expect(JSON.stringify(row)).not.toContain('secret plan');
    expect(auditEventText({ ...row!, ts: '2026-12-06T00:00:00.000Z' })).toMatch(
      /client answered sampling\/createMessage, text of 21 characters .*, 250 ms \d+ bytes$/,
    );
  });

  it("name a form's fields but keep out what the user typed", async () => {
    const w = wired(gate);
    const form = {
      jsonrpc: '2.0',
      id: 'e1',
      method: 'elicitation/create',
      params: { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } },
    };
    await w.fromServer(form);
    const typed = { action: 'accept', content: { name: 'Ada Lovelace', team: 'analytical' } };
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 'e1', result: typed }));
    const row = w.events.find((e) => e.kind === 'mcp.client-answer');
    expect(row).toMatchObject({ resultSummary: 'accept: fields "name", "team"' });
    expect(JSON.stringify(w.events)).not.toContain('Lovelace');
    await w.fromServer({ ...form, id: 'e2' });
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 'e2', result: { action: 'decline' } }));
    expect(w.events.filter((e) => e.kind === 'mcp.client-answer').at(-1)).toMatchObject({
      requestId: 'e2',
      resultSummary: 'decline',
    });
  });

  it('are recorded as errors when the client refuses, and only for what the server asked', async () => {
    const dropped: string[] = [];
    const w = wired(gate, { onDropped: (what) => dropped.push(what) });
    await w.fromServer({ ...sampling, id: 7 });
    const refusal = { error: { code: -32601, message: 'Method not found' } };
    await w.fromClient(answer(7, refusal));
    // Answered already, or never asked: nothing waits for it, and it would reach the server
    // unrecorded, so it goes nowhere.
    await w.fromClient(answer(7, refusal));
    await w.fromClient(answer(8, { result: {} }));
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: null, ...refusal }));
    expect(w.toServer().split('\n').filter(Boolean)).toHaveLength(1);
    expect(dropped).toEqual([
      "the client's answer with id 7 to no request of the server's",
      "the client's answer with id 8 to no request of the server's",
      "the client's answer with id of type null to no request of the server's",
    ]);
    const rows = w.events.filter((e) => e.kind === 'mcp.client-answer');
    expect(rows).toMatchObject([
      { outcome: 'error', requestId: 7, error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it("refuse a server's request that reuses an id still waiting, so that answers stay apart", async () => {
    const w = wired(gate);
    const form = {
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: { message: 'pw?' },
    };
    await w.fromServer(form);
    await w.fromServer({ ...sampling, id: 1 });
    // The client saw only the first; the server is told why the second went nowhere.
    expect(w.toClient().match(/"id":1/g)).toHaveLength(1);
    expect(w.toServer()).toContain('a request with this id still waits for its answer');
    const accepted = { action: 'accept', content: { password: 'hunter2' } };
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 1, result: accepted }));
    const rows = w.events.filter((e) => e.kind.startsWith('mcp.'));
    expect(rows.map((e) => [e.kind, e.outcome, 'method' in e && e.method])).toEqual([
      ['mcp.server-request', 'info', 'elicitation/create'],
      ['mcp.server-request', 'refused', 'sampling/createMessage'],
      ['mcp.client-answer', 'ok', 'elicitation/create'],
    ]);
  });

  it('keep what the server chose small: a long method cut (a long id: relay-request-ids)', () => {
    const asks = new ClientAnswers({ server: 's', instance: 's#1', redact: (v) => v });
    asks.asked(2, 'm'.repeat(1_000_000), 0);
    const row = asks.answered({ jsonrpc: '2.0', id: 2, result: {} }, 10, 1);
    expect(row?.kind === 'mcp.client-answer' && row.method.length).toBe(101);
  });

  it('pass what they summarise through the redaction, and cut long names', () => {
    const redact = (v: unknown) => String(v).replaceAll('ghp_secret', '«credential»');
    const asks = new ClientAnswers({ server: 's', instance: 's#1', redact });
    asks.asked(3, 'elicitation/create', 0);
    const content = { ghp_secret: 'x', ['n'.repeat(500)]: 'y' };
    const row = asks.answered(
      { jsonrpc: '2.0', id: 3, result: { action: 'accept', content } },
      10,
      1,
    );
    const summary = row && 'resultSummary' in row ? row.resultSummary : '';
    expect(summary).toContain('«credential»');
    expect(summary).not.toContain('ghp_secret');
    expect(summary).toContain(`"${'n'.repeat(64)}…"`);
  });

  it('are not waited for without end: past the bound the oldest request is forgotten', () => {
    const asks = new ClientAnswers({ server: 's', instance: 's#1', redact: (v) => v }, 2);
    for (const id of [1, 2, 3]) asks.asked(id, 'ping', 0);
    const reply = (id: number) => ({ jsonrpc: '2.0' as const, id, result: {} });
    expect(asks.answered(reply(1), 10, 5)).toBeUndefined();
    expect(asks.answered(reply(2), 10, 5)).toMatchObject({ method: 'ping', durationMs: 5 });
    expect(asks.answered(reply(3), 10, 5)).toMatchObject({ method: 'ping' });
  });
});
