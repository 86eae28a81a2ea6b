import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { Relay } from '../gateway/relay';
import { RefusedMessages } from './refused-messages';

describe('RefusedMessages', () => {
  it('records the first refusals one by one and the rest as counted summaries', () => {
    const events: AuditEventInput[] = [];
    const failed: unknown[] = [];
    const refused = new RefusedMessages({
      server: 's',
      instance: 'i',
      audit: (e) => void events.push(e),
      log: () => undefined,
      relay: { failCall: (id: unknown) => failed.push(id) } as unknown as Relay,
      client: {} as Transport,
    });
    const deep = {
      limit: 'messageDepth' as const,
      max: 64,
      bytes: 10,
      id: 7,
      hasMethod: false,
      hasAnswer: true,
    };
    for (let i = 0; i < 2500; i++) refused.fromServer(deep);
    refused.flush();
    const rows = events.filter((e) => e.kind === 'limit.hit');
    expect(rows).toHaveLength(20 + 2 + 1);
    expect(rows.slice(20).map((r) => (r as { value?: number }).value)).toEqual([1000, 1000, 480]);
    expect(rows.at(-1)).toMatchObject({
      limit: 'refusedMessages',
      detail:
        '480 more messages refused over the size or depth limit (2500 in this session so far)',
    });
    expect(failed).toHaveLength(2500);
  });

  it('fails the call a server answered with too many arrays and objects, and says why', () => {
    const events: AuditEventInput[] = [];
    const failed: unknown[][] = [];
    const refused = new RefusedMessages({
      server: 's',
      instance: 'i',
      audit: (e) => void events.push(e),
      log: () => undefined,
      relay: { failCall: (...args: unknown[]) => failed.push(args) } as unknown as Relay,
      client: {} as Transport,
    });
    refused.fromServer({
      limit: 'messageContainers',
      max: 1_000_000,
      bytes: 3_000_012,
      id: 3,
      hasMethod: false,
      hasAnswer: true,
    });
    const why =
      'the server sent a message of more than 1000000 arrays and objects (3000012 bytes), too costly to read; it was refused unread';
    expect(failed).toEqual([[3, -32003, why]]);
    expect(events).toEqual([
      expect.objectContaining({ kind: 'limit.hit', limit: 'messageContainers', detail: why }),
    ]);
  });
});
