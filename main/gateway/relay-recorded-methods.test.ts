/**
 * A method comes from the wire and may be of any length: the audit log records it cut to 100
 * characters and an ellipsis, in every row that carries one, so that a method of megabytes does
 * not make a row (or a key of the flood guard, which counts a server's requests by method) of
 * megabytes. What is passed on to the other side is the method whole, as Warden read it.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import { repeatSubject } from '../audit/audit-flood-guard';
import { wiredRelay } from '../../test/helpers/line-relay';
import { standaloneGuards } from '../../test/helpers/call-guards';
import { ApprovalInbox } from './approval-inbox';
import type { ToolGate } from './relay';
import { createToolGate } from './tool-gate';
import { DriftRegistry } from './tool-drift';

const LONG = 'm'.repeat(1_000_000);
const CUT = `${'m'.repeat(100)}…`;
const GITHUB = 'ghp_Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc1Vb2Nm';

const gate: ToolGate = {
  filterList: (tools) => Promise.resolve(tools),
  checkCall: () => ({ allow: true }),
};

function wired(g = gate) {
  const events: AuditEventInput[] = [];
  return { ...wiredRelay(g, (e) => void events.push(e)), events };
}

const methods = (events: AuditEventInput[]) =>
  events.map((e) => [e.kind, 'method' in e ? e.method : undefined]);

describe('a long method', () => {
  it("of the client's request is recorded cut, in its request and its answer", async () => {
    const w = wired();
    await w.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 1, method: LONG }));
    expect(JSON.parse(w.toServer())).toMatchObject({ method: LONG });
    await w.fromServer('{"jsonrpc":"2.0","id":1,"result":{}}');
    // Refused for its id: cut in the sentence that says so.
    await w.fromClient(`{"jsonrpc":"2.0","id":1e400,"method":"${LONG}"}`);
    expect(methods(w.events)).toEqual([
      ['mcp.request', CUT],
      ['mcp.response', CUT],
      ['limit.hit', undefined],
    ]);
    expect(JSON.stringify(w.events).length).toBeLessThan(2000);
  });

  it("a tool's long name is recorded cut, in the call's request and its answer", async () => {
    const w = wired();
    const call = { name: LONG, arguments: {} };
    await w.fromClient(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }),
    );
    expect(JSON.parse(w.toServer())).toMatchObject({ params: { name: LONG } });
    await w.fromServer('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}');
    const tools = w.events.map((e) => ('tool' in e ? e.tool : undefined));
    expect(tools).toEqual([`${'m'.repeat(128)}…`, `${'m'.repeat(128)}…`]);
    expect(JSON.stringify(w.events).length).toBeLessThan(2000);
  });

  it("of the server's request is recorded cut, in its request and the client's answer", async () => {
    const w = wired();
    await w.fromServer(JSON.stringify({ jsonrpc: '2.0', id: 1, method: LONG }));
    expect(JSON.parse(w.toClient())).toMatchObject({ method: LONG });
    await w.fromClient('{"jsonrpc":"2.0","id":1,"result":{}}');
    await w.fromServer(`{"jsonrpc":"2.0","id":1e400,"method":"${LONG}"}`);
    expect(methods(w.events)).toEqual([
      ['mcp.server-request', CUT],
      ['mcp.client-answer', CUT],
      ['mcp.server-request', CUT],
    ]);
    // The flood guard counts the server's requests by method: its key is as short.
    const row = { ...w.events[0]!, ts: '2026-12-06T00:00:00.000Z' };
    expect(repeatSubject(row)).toBe(CUT);
  });

  it("of a server's request the credential scan refused is recorded cut, in each row", async () => {
    const policy = defaultPolicy();
    policy.tools.credentials = 'block';
    const { guards, events: found } = standaloneGuards(policy, []);
    const real = createToolGate({
      server: 's',
      instance: 's#1',
      policy: () => policy.tools,
      pin: () => Promise.resolve(),
      drift: new DriftRegistry(),
      approvals: new ApprovalInbox(() => undefined),
      audit: () => undefined,
      redact: (v) => v,
      guards,
    });
    const w = wired(real);
    const params = { messages: [{ role: 'user', content: { type: 'text', text: GITHUB } }] };
    await w.fromServer(JSON.stringify({ jsonrpc: '2.0', id: 2, method: LONG, params }));
    expect(w.toClient()).toBe('');
    const rows = [...found, ...w.events];
    expect(methods(rows)).toEqual([
      ['credential.found', CUT],
      ['mcp.server-request', CUT],
    ]);
    expect(JSON.stringify(rows).length).toBeLessThan(2000);
  });
});
