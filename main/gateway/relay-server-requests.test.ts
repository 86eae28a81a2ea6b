/**
 * A request a server sends to the client (`sampling/createMessage` asks the client's model, say
 * to "ignore previous instructions"; `elicitation/create` asks the user) is recorded in the audit
 * log as the client was shown it, or as refused with the reason and without its params, so that
 * what a server asked of the model and the user can be found later (credentials in it stay out:
 * test/gateway/credential-relay.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import type { ToolGate } from './relay';
import { wiredRelay } from '../../test/helpers/line-relay';

function wired(gate: ToolGate) {
  const events: AuditEventInput[] = [];
  const w = wiredRelay(gate, (e) => void events.push(e));
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
