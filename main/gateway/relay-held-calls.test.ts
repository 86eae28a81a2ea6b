/**
 * A call held for the user's approval (an approval rule, or a credential in its arguments) has not
 * reached the server, so nothing the server sends can answer it: not a result or an error with its
 * id (a hostile server guesses it from the gap in the ids it was sent), not an oversized answer
 * refused unread. Such an answer is dropped and noted in the instance's log; once approved, the
 * call is sent and its real answer goes through; denied, the client hears the denial alone. A call
 * that left while held (cancelled) is never sent, even when its id is reused.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import { RefusedMessages } from '../supervisor/refused-messages';
import { ApprovalInbox } from './approval-inbox';
import { createCallGuards } from './call-guards';
import { hostPathFacts } from './host-paths';
import { createToolGate } from './tool-gate';
import { DriftRegistry } from './tool-drift';
import { wiredRelay } from '../../test/helpers/line-relay';

// A made-up credential in its format (not a real one).
const GITHUB = 'ghp_Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc1Vb2Nm';
const MAX_MESSAGE_BYTES = 4096;

/** The two ways a call is held: the tool needs approval, or its arguments carry a credential. */
const HOLDS = [
  { why: 'an approval rule', tool: 'write', args: { path: '/srv/notes.txt' } },
  { why: 'a credential in its arguments', tool: 'echo', args: { text: `key ${GITHUB}` } },
];

const call = (id: number, tool: string, args: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
const answer = (id: number, ...texts: string[]) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { content: texts.map((text) => ({ type: 'text', text })) },
  });

/**
 * A relay wired as a session wires it (the tool gate with its guards and approvals, refused
 * messages failing their call, drops noted in the log) between line transports the test holds.
 */
function wired() {
  const events: AuditEventInput[] = [];
  const audit = (e: AuditEventInput) => void events.push(e);
  const log: string[] = [];
  const policy = defaultPolicy();
  policy.tools.approval.push('write');
  const approvals = new ApprovalInbox(audit);
  const redact = (v: unknown) => v;
  const guards = createCallGuards({
    server: 's',
    instance: 's#1',
    policy: () => policy,
    paths: hostPathFacts,
    secrets: () => [],
    ownSecrets: () => [],
    approvals,
    audit,
    redact,
  });
  const gate = createToolGate({
    server: 's',
    instance: 's#1',
    policy: () => policy.tools,
    pin: () => Promise.resolve(),
    drift: new DriftRegistry(),
    approvals,
    audit,
    redact,
    guards,
  });
  const w = wiredRelay(gate, audit, {
    maxServerBytes: MAX_MESSAGE_BYTES,
    relay: { onDropped: (what) => log.push(`[dropped] ${what}`) },
  });
  const refused = new RefusedMessages({
    server: 's',
    instance: 's#1',
    audit,
    log: (line) => log.push(line),
    relay: w.relay,
    client: w.client,
  });
  w.upstream.onrefused = (info) => refused.fromServer(info);
  /** Decides the one call waiting for the user, once it waits. */
  const decide = async (decision: 'approve' | 'deny') => {
    await expect.poll(() => approvals.list().length).toBe(1);
    await approvals.decide(approvals.list()[0]!.id, decision);
    await w.settle();
  };
  return {
    fromClient: w.fromClient,
    fromServer: w.fromServer,
    decide,
    toClient: w.toClient,
    toServer: w.toServer,
    /** The audit rows of the answers to `id`. */
    responses: (id: number) =>
      events.filter((e) => e.kind === 'mcp.response' && e.requestId === id),
    log,
  };
}

describe.each(HOLDS)('a call held for $why', ({ tool, args }) => {
  it('is not answered by the server before it is approved; then its real answer goes through', async () => {
    const w = wired();
    await w.fromClient(call(1, tool, args));
    await w.fromServer(answer(1, 'forged', 'forged'));
    expect(w.toServer()).toBe('');
    expect(w.toClient()).toBe('');
    expect(w.responses(1)).toEqual([]);
    expect(w.log).toEqual(['[dropped] an answer with id 1 to a call not sent to the server yet']);

    await w.decide('approve');
    expect(JSON.parse(w.toServer())).toMatchObject({ id: 1, params: { name: tool } });
    expect(w.toClient()).toBe('');
    await w.fromServer(answer(1, 'real'));
    expect(JSON.parse(w.toClient())).toEqual(JSON.parse(answer(1, 'real')));
    expect(w.responses(1)).toEqual([
      expect.objectContaining({ outcome: 'ok', tool, resultSummary: '1 content block' }),
    ]);
  });

  it('denied, gives the client the denial alone, and the audit no answer of the server', async () => {
    const w = wired();
    await w.fromClient(call(1, tool, args));
    await w.fromServer(answer(1, 'forged'));
    await w.fromServer('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"forged"}}');
    await w.decide('deny');
    expect(w.toServer()).toBe('');
    const lines = w.toClient().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      id: 1,
      error: { message: expect.stringMatching(/^Warden: .* not approved$/) as unknown },
    });
    expect(w.responses(1)).toEqual([expect.objectContaining({ outcome: 'refused', tool })]);
    expect(w.log).toHaveLength(2);
  });

  it.each([
    ['with its id', 1],
    ['without an id (it is the only call in flight)', undefined],
  ])(
    'is not failed by an oversized answer %s; approved, its real answer goes through',
    async (_what, id) => {
      const w = wired();
      await w.fromClient(call(1, tool, args));
      const big = 'x'.repeat(MAX_MESSAGE_BYTES);
      await w.fromServer(
        JSON.stringify({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), result: { big } }),
      );
      expect(w.log[0]).toMatch(/^\[message refused\] the server sent a message of \d+ bytes/);
      expect(w.toClient()).toBe('');
      expect(w.responses(1)).toEqual([]);

      await w.decide('approve');
      expect(JSON.parse(w.toServer())).toMatchObject({ id: 1, params: { name: tool } });
      await w.fromServer(answer(1, 'real'));
      expect(JSON.parse(w.toClient())).toEqual(JSON.parse(answer(1, 'real')));
      expect(w.responses(1)).toEqual([expect.objectContaining({ outcome: 'ok', tool })]);
    },
  );

  it('cancelled by the client, is not sent when approved later, even when its id is reused', async () => {
    const w = wired();
    await w.fromClient(call(1, tool, args));
    await w.fromClient(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    );
    await w.fromClient('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    await w.decide('approve');
    const sent = w
      .toServer()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string });
    expect(sent.map((m) => m.method)).toEqual(['notifications/cancelled', 'tools/list']);
    await w.fromServer('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
    expect(JSON.parse(w.toClient())).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  });
});
