/**
 * One row a call: a request answered at once is recorded with its answer as one `mcp.call` row,
 * and in every other case the log keeps the order things came in, each request its own row.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { AuditQuery } from '../../app/audit/audit-row';
import { rowMatches } from '../../renderer/src/store/audit/audit-filter';
import type { AuditStore, AuditStoreOptions } from './audit-store';
import { answerEvent, callEvent, netEvent } from './audit-test-events';
import { auditStoreEach } from '../../test/helpers/audit-store-each';

const t = auditStoreEach('warden-held-');
const open = (options: Partial<AuditStoreOptions> = {}): AuditStore => t.open(options);

/** The log, oldest first, as `kind requestId` (or `kind host`). */
async function kinds(s: AuditStore): Promise<string[]> {
  const page = await s.query({ limit: 100 });
  return page.rows
    .reverse()
    .map((r) =>
      'requestId' in r.event
        ? `${r.kind} ${String(r.event.requestId)}`
        : `${r.kind} ${'host' in r.event ? r.event.host : ''}`.trim(),
    );
}

describe('held requests: one row a call', () => {
  it('records a call answered at once as one row with both halves', async () => {
    const s = open({ secretsFor: () => [{ value: 'hunter2-secret', name: 'TOKEN' }] });
    s.append(callEvent('files', 1, { path: '/a', token: 'hunter2-secret' }));
    s.append(answerEvent('files', 1));
    const page = await s.query({ limit: 10 });
    expect(page.rows).toHaveLength(1);
    const [row] = page.rows;
    expect(row?.kind).toBe('mcp.call');
    expect(row?.outcome).toBe('ok');
    expect(row?.event).toMatchObject({
      requestId: 1,
      method: 'tools/call',
      tool: 'read_file',
      requestBytes: 121,
      sizeBytes: 64,
      resultSummary: '1 content block',
      durationMs: 0.4,
    });
    // The arguments are those of the request, redacted with the secrets of the moment.
    expect(JSON.stringify(row?.event)).not.toContain('hunter2-secret');
    expect((row?.event as { args: { path: string } }).args.path).toBe('/a');
    expect((await s.query({ text: 'read_file', limit: 10 })).rows).toHaveLength(1);
    expect(s.verify()).toMatchObject({ ok: true, rows: 1 });
  });

  it('fixes the request when it comes: later changes and a secret dropped since do not count', async () => {
    let secrets = [{ value: 'hunter2-secret', name: 'TOKEN' }];
    const s = open({ secretsFor: () => secrets });
    const args = { path: '/a', token: 'hunter2-secret' };
    s.append(callEvent('files', 1, args));
    args.path = '/changed';
    secrets = [];
    s.append(answerEvent('files', 1));
    const [row] = (await s.query({ limit: 10 })).rows;
    expect(row?.kind).toBe('mcp.call');
    expect((row?.event as { args: { path: string } }).args.path).toBe('/a');
    expect(JSON.stringify(row?.event)).not.toContain('hunter2-secret');
  });

  it('keeps the order when anything else is recorded between a request and its answer', async () => {
    const s = open();
    s.append(callEvent('files', 1, {}));
    s.append(callEvent('files', 2, {}));
    s.append(netEvent('files', 4));
    s.append(answerEvent('files', 1));
    s.append(answerEvent('files', 2));
    expect(await kinds(s)).toEqual([
      'mcp.request 1',
      'mcp.request 2',
      'network.decision host4.example.com',
      'mcp.response 1',
      'mcp.response 2',
    ]);
  });

  it('records a request alone once it waited longer than the hold', async () => {
    const s = open({ holdRequestsMs: 10 });
    s.append(callEvent('files', 1, {}));
    await sleep(60);
    // No longer held: queued on its own, and written by now.
    expect(s.pendingCount()).toBe(0);
    s.append(answerEvent('files', 1));
    expect(await kinds(s)).toEqual(['mcp.request 1', 'mcp.response 1']);
  });

  it('writes held requests when the log is read, flushed or closed', async () => {
    const s = open();
    s.append(callEvent('files', 1, {}));
    expect(await kinds(s)).toEqual(['mcp.request 1']);
    s.append(callEvent('files', 2, {}));
    await s.flush();
    s.append(callEvent('files', 3, {}));
    await s.close();
    const reopened = open();
    expect(await kinds(reopened)).toEqual(['mcp.request 1', 'mcp.request 2', 'mcp.request 3']);
  });

  it('pairs an answer only with its own server, instance, id and method', async () => {
    const s = open();
    const others: Partial<AuditEventInput>[] = [
      { server: 'github' },
      { instance: 'files#2' },
      { method: 'resources/read' },
    ];
    for (const [i, other] of others.entries()) {
      s.append(callEvent('files', i + 1, {}));
      s.append(answerEvent('files', i + 1, other));
    }
    s.append(callEvent('files', 5, {}));
    s.append(answerEvent('files', 5));
    const expected = [1, 2, 3].flatMap((n) => [`mcp.request ${n}`, `mcp.response ${n}`]);
    expect(await kinds(s)).toEqual([...expected, 'mcp.call 5']);
  });

  it('does not leave a request to the answer of another by the same id', async () => {
    const s = open();
    s.append(callEvent('files', 1, { first: true }));
    s.append(callEvent('files', 1, { second: true }));
    s.append(answerEvent('files', 1));
    const rows = (await s.query({ limit: 10 })).rows.reverse();
    expect(rows.map((r) => r.kind)).toEqual(['mcp.request', 'mcp.call']);
    expect(rows[0]?.event).toMatchObject({ args: { first: true } });
    expect(rows[1]?.event).toMatchObject({ args: { second: true } });
  });

  it('combines calls answered out of order, each at its answer', async () => {
    const s = open();
    for (let n = 1; n <= 3; n += 1) s.append(callEvent('files', n, {}));
    s.append(answerEvent('files', 3));
    s.append(answerEvent('files', 1));
    s.append(answerEvent('files', 2));
    expect(await kinds(s)).toEqual(['mcp.call 3', 'mcp.call 1', 'mcp.call 2']);
  });

  it('keeps the time a request came when it is recorded alone', async () => {
    let now = new Date('2026-12-06T10:00:00.000Z');
    const s = open({ now: () => now });
    s.append(callEvent('files', 1, {}));
    now = new Date('2026-12-06T10:00:05.000Z');
    s.append(netEvent('files', 2));
    const rows = (await s.query({ limit: 10 })).rows.reverse();
    expect(rows.map((r) => r.ts)).toEqual(['2026-12-06T10:00:00.000Z', '2026-12-06T10:00:05.000Z']);
  });

  it('shows a call row to a filter by requests or by responses', async () => {
    const s = open();
    s.append(callEvent('files', 1, {}));
    s.append(answerEvent('files', 1));
    s.append(netEvent('files', 2));
    const of = async (kind: AuditQuery['kind']) =>
      (await s.query({ kind, limit: 10 })).rows.map((r) => r.kind);
    expect(await of('mcp.request')).toEqual(['mcp.call']);
    expect(await of('mcp.response')).toEqual(['mcp.call']);
    expect(await of(['mcp.response', 'network.decision'])).toEqual([
      'network.decision',
      'mcp.call',
    ]);
    expect(await of('network.decision')).toEqual(['network.decision']);
    const live = (await s.query({ limit: 10 })).rows.find((r) => r.kind === 'mcp.call')!;
    expect(rowMatches(live, { kinds: ['mcp.request'] })).toBe(true);
    expect(rowMatches(live, { kinds: ['network.decision'] })).toBe(false);
  });

  it('gives a call the time of its answer when the events came stamped', async () => {
    const s = open();
    s.append(callEvent('files', 1, {}, '2026-12-06T10:00:00.000Z'));
    s.append(answerEvent('files', 1, { ts: '2026-12-06T10:00:00.170Z' }));
    const rows = (await s.query({ limit: 10 })).rows;
    expect(rows.map((r) => [r.kind, r.ts])).toEqual([['mcp.call', '2026-12-06T10:00:00.170Z']]);
  });

  it('records every request as it comes with holdRequestsMs 0', async () => {
    const s = open({ holdRequestsMs: 0 });
    s.append(callEvent('files', 1, {}));
    expect(s.pendingCount()).toBe(1);
    s.append(answerEvent('files', 1));
    expect(await kinds(s)).toEqual(['mcp.request 1', 'mcp.response 1']);
  });
});
