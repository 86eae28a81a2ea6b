/**
 * "Try it" runs its call in an instance of its own, listed and audited under the client name
 * "Warden Try it"; the audit's client is the name Warden gave the session, so a client cannot
 * pass itself off as Try it by the name it sends in its handshake.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import type { ConfigStore } from '../../main/config/config-store';
import { TRY_IT_CLIENT, createDetailHandlers } from '../../main/core/detail-handlers';
import { hostileSetup } from '../helpers/hostile-sessions';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-try-it-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const calls = (events: AuditEventInput[]) =>
  events.filter(
    (e): e is Extract<AuditEventInput, { kind: 'mcp.request' }> =>
      e.kind === 'mcp.request' && e.method === 'tools/call',
  );

describe('Try it', () => {
  it('calls the tool in its own instance, listed and audited as Warden Try it', async () => {
    const s = hostileSetup({ dir });
    try {
      const handlers = createDetailHandlers({
        config: { getServer: () => s.server } as unknown as ConfigStore,
        supervisor: s.supervisor,
        warden: { command: 'warden', args: [], env: {} },
        gateway: () => undefined,
      });
      const answer = await handlers['tools.call']({
        server: 'hostile',
        tool: 'behave',
        arguments: { behaviour: 'echo', text: 'tried' },
      });
      expect(answer.ok).toBe(true);
      const instance = s.supervisor.list().find((i) => i.client === TRY_IT_CLIENT);
      expect(instance).toBeDefined();
      const [call] = calls(s.events);
      expect(call).toMatchObject({ instance: instance?.id, tool: 'behave', client: TRY_IT_CLIENT });
      expect(auditEventText({ ...call!, ts: 't' })).toContain('client Warden Try it');
    } finally {
      await s.supervisor.stopAll();
    }
  });

  it('audits another client by the name Warden gave it, whatever its handshake says', async () => {
    const s = hostileSetup({ dir });
    try {
      const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
      await s.supervisor.open('hostile', sessionSide, 'stdio');
      const client = new Client({ name: TRY_IT_CLIENT, version: '1' });
      await client.connect(clientSide);
      await client.callTool({ name: 'behave', arguments: { behaviour: 'echo' } });
      await client.close();
      expect(calls(s.events).map((c) => c.client)).toEqual(['stdio']);
    } finally {
      await s.supervisor.stopAll();
    }
  });
});
