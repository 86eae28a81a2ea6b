import { describe, expect, it } from 'vitest';
import type { AuditRow } from '../../../app/audit/audit-row';
import { foldActivity } from '../../../renderer/src/store/activity/activity-fold';

let id = 0;
const row = (server: string, event: Record<string, unknown>, outcome = 'info'): AuditRow =>
  ({
    id: ++id,
    ts: '2026-12-01T10:00:00.000Z',
    kind: event.kind,
    server,
    instance: 'i-1',
    outcome,
    event: { server, instance: 'i-1', ...event },
    hash: '',
    prevHash: '',
  }) as unknown as AuditRow;

const request = (server: string, requestId: number, tool = 'echo') =>
  row(server, { kind: 'mcp.request', requestId, method: 'tools/call', tool, sizeBytes: 0 });
const response = (server: string, requestId: number, outcome = 'ok', tool = 'echo') =>
  row(
    server,
    { kind: 'mcp.response', requestId, method: 'tools/call', tool, durationMs: 1, sizeBytes: 0 },
    outcome,
  );
const call = (server: string, requestId: number, outcome = 'ok', tool = 'echo') =>
  row(
    server,
    {
      kind: 'mcp.call',
      requestId,
      method: 'tools/call',
      tool,
      requestBytes: 0,
      durationMs: 1,
      sizeBytes: 0,
    },
    outcome,
  );
const decision = (server: string, host: string, allow: boolean) =>
  row(
    server,
    {
      kind: 'network.decision',
      host,
      port: 443,
      decision: allow ? 'allow' : 'deny',
      by: 'rule',
      bytesUp: 0,
      bytesDown: 0,
      durationMs: 0,
    },
    allow ? 'ok' : 'refused',
  );

describe('foldActivity', () => {
  it('counts a call recorded in one row once, with its outcome', () => {
    const rows = [call('a', 1), call('a', 2, 'error', 'write'), request('a', 3), response('a', 3)];
    const { activity } = foldActivity({}, rows, 0);
    expect(activity.a).toMatchObject({ calls: 3, callErrors: 1 });
    expect(activity.a!.recent.map((i) => [i.label, i.outcome])).toEqual([
      ['echo', 'ok'],
      ['write', 'error'],
      ['echo', 'ok'],
    ]);
  });

  it('pairs a call with its answer, counts calls, failures, network use and refusals', () => {
    const rows = [
      request('a', 1),
      response('a', 1),
      request('a', 2, 'write'),
      response('a', 2, 'error', 'write'),
      decision('a', 'api.example.com', true),
      decision('a', 'evil.example.com', false),
    ];
    const { activity } = foldActivity({}, rows, 0);
    const a = activity.a!;
    expect(a).toMatchObject({ calls: 2, callErrors: 1, network: 2, networkRefused: 1 });
    expect(a.lastRefusedHost).toBe('evil.example.com');
    expect(a.recent.map((i) => [i.label, i.outcome])).toEqual([
      ['evil.example.com:443', 'refused'],
      ['api.example.com:443', 'ok'],
      ['write', 'error'],
      ['echo', 'ok'],
    ]);
  });

  it('keeps the same object for servers that did nothing, and skips rows already folded', () => {
    const first = foldActivity({}, [request('a', 1), request('b', 1)], 0);
    const answer = response('b', 1);
    const next = foldActivity(first.activity, [answer], first.seen);
    expect(next.activity.a).toBe(first.activity.a);
    expect(next.activity.b).not.toBe(first.activity.b);
    const again = foldActivity(next.activity, [answer], next.seen);
    expect(again.activity).toBe(next.activity);
  });

  it('keeps only the last few items', () => {
    const rows = Array.from({ length: 20 }, (_, i) => request('a', i));
    expect(foldActivity({}, rows, 0).activity.a!.recent).toHaveLength(6);
  });
});
