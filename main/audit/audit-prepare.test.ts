import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditEventInput } from '../../app/audit/audit-event';
import { prepare, prepareBatch, snapshot, snapshotAt, toBatch } from './audit-prepare';

const secret = { name: 'API_TOKEN', value: 'tok_0123456789abcdef' };

function event(args: unknown): AuditEvent {
  return {
    kind: 'mcp.request',
    ts: '2026-01-01T00:00:00.000Z',
    outcome: 'info',
    server: 'files',
    instance: 'files#1',
    requestId: 1,
    method: 'tools/call',
    tool: 'read',
    args,
    sizeBytes: 10,
  };
}

describe('audit snapshots', () => {
  it('fix the event at once and are redacted into a canonical row', () => {
    const args = { b: `Bearer ${secret.value}`, a: [1n] };
    const taken = snapshot(event(args), [secret]);
    args.b = 'changed';
    expect(taken.json).toContain(secret.value);
    const row = prepare(taken.json, taken.secrets);
    expect(row.body).not.toContain(secret.value);
    expect(row.text).not.toContain(secret.value);
    expect(JSON.parse(row.body)).toMatchObject({
      args: { a: ['1'], b: 'Bearer «secret:API_TOKEN»' },
    });
    expect(row.body.indexOf('"args"')).toBeLessThan(row.body.indexOf('"kind"'));
  });

  it('keep each event with its own secret set through the packed batch', () => {
    const other = { name: 'OTHER', value: 'other-secret-value' };
    const snaps = [
      snapshot(event({ v: secret.value }), [secret]),
      snapshot(event({ v: other.value }), [other]),
      snapshot(event({ v: secret.value }), []),
    ];
    const packed = toBatch(snaps);
    expect(packed.sets).toHaveLength(3);
    const rows = prepareBatch(structuredClone(packed));
    expect(rows.map((r) => (JSON.parse(r.body) as { args: { v: string } }).args.v)).toEqual([
      '«secret:API_TOKEN»',
      '«secret:OTHER»',
      secret.value,
    ]);
  });

  it('give a row even to an event whose fields do not match its kind', () => {
    const odd = { kind: 'tool.drift', outcome: 'info', ts: '2026-01-01T00:00:00.000Z' };
    const row = prepare(JSON.stringify(odd), []);
    expect(row.text).toBe('tool.drift info: (no summary)');
    expect(row.kind).toBe('tool.drift');
  });

  it('stamped without a copy, give the row the copy gives, and still fix the event at once', () => {
    const ts = '2026-02-03T04:05:06.789Z';
    const unstamped = (args: unknown): AuditEventInput => {
      const { ts: _, ...rest } = event(args) as Extract<AuditEvent, { kind: 'mcp.request' }>;
      return rest;
    };
    const inputs: AuditEventInput[] = [
      unstamped({ path: '/a', token: secret.value }),
      { ...unstamped({ path: '/a' }), ts: '2026-01-01T00:00:00.000Z' },
      unstamped({ big: 1n }),
      { ...unstamped({ path: '/a' }), ts: undefined },
    ];
    for (const input of inputs) {
      const copied = snapshot({ ...input, ts }, [secret]);
      const taken = snapshotAt(input, ts, [secret]);
      expect(prepare(taken.json, taken.secrets)).toEqual(prepare(copied.json, copied.secrets));
    }
    const args = { path: '/a' };
    const taken = snapshotAt(unstamped(args), ts, []);
    args.path = '/changed';
    expect(JSON.parse(prepare(taken.json, []).body)).toMatchObject({ ts, args: { path: '/a' } });
  });
});
