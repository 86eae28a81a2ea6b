/**
 * A request a server sends to the client (`sampling/createMessage` asks the client's model, say
 * to "ignore previous instructions"; `elicitation/create` asks the user) is recorded in the audit
 * log as the client was shown it, or as refused with the reason and without its params, so that
 * what a server asked of the model and the user can be found later (credentials in it stay out:
 * test/gateway/credential-relay.test.ts).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import { LineTransport } from './line-transport';
import type { ToolGate } from './relay';
import { lineRelay } from '../../test/helpers/line-relay';

function wired(gate: ToolGate) {
  const [clientIn, clientOut, serverIn, serverOut] = [0, 1, 2, 3].map(() => new PassThrough());
  const toClient: string[] = [];
  const toServer: string[] = [];
  clientOut!.on('data', (b: Buffer) => toClient.push(b.toString('utf8')));
  serverIn!.on('data', (b: Buffer) => toServer.push(b.toString('utf8')));
  const events: AuditEventInput[] = [];
  const client = new LineTransport(clientIn!, clientOut!);
  const upstream = new LineTransport(serverOut!, serverIn!);
  lineRelay(client, upstream, gate, (e) => void events.push(e));
  return {
    events,
    toClient,
    toServer,
    fromServer: async (message: unknown) => {
      serverOut!.write(`${JSON.stringify(message)}\n`);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
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
    expect(w.toClient.join('')).toContain('ignore previous');
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
    expect(w.toClient.join('')).toBe('');
    expect(w.toServer.join('')).toContain('it held credentials');
    const rows = w.events.filter((e) => e.kind === 'mcp.server-request');
    expect(rows).toMatchObject([
      { outcome: 'refused', requestId: 42, reason: 'it held credentials' },
    ]);
    // What was refused (a credential, say) is not written down either.
    expect(rows[0]).not.toHaveProperty('params');
  });
});
