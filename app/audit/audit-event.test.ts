import { describe, expect, it } from 'vitest';
import { auditEventSchema, auditKinds, isAuditKind } from './audit-event';
import { AUDIT_KINDS } from './audit-kinds';
import { auditQuerySchema } from './audit-row';
import { auditEventText } from './audit-text';

const ts = '2026-11-29T09:00:00.000Z';

describe('audit events', () => {
  it('lists every kind the log records', () => {
    // AUDIT_KINDS is the list written out by hand, in the schema's order.
    expect(auditKinds).toEqual(AUDIT_KINDS);
    expect(isAuditKind('network.decision')).toBe(true);
    expect(isAuditKind('network')).toBe(false);
  });

  it('parses a network decision and refuses one without its instance', () => {
    const event = {
      kind: 'network.decision',
      ts,
      server: 'github',
      instance: 'github#1',
      outcome: 'refused',
      host: 'example.com',
      port: 443,
      decision: 'deny',
      by: 'rule',
      rule: '*.example.com',
      bytesUp: 0,
      bytesDown: 0,
      durationMs: 1.5,
    };
    expect(auditEventSchema.parse(event)).toEqual(event);
    const { instance: _drop, ...noInstance } = event;
    expect(auditEventSchema.safeParse(noInstance).success).toBe(false);
    expect(auditEventText(auditEventSchema.parse(event))).toBe(
      'network.decision refused github/github#1: deny example.com:443 by rule, rule *.example.com, up 0 down 0 2 ms',
    );
  });

  it('summarizes a policy change with the changed field paths', () => {
    const event = auditEventSchema.parse({
      kind: 'policy.changed',
      ts,
      server: 'fs',
      outcome: 'info',
      revisionBefore: 3,
      revisionAfter: 4,
      changed: ['policy.network.allow', 'launch.args'],
    });
    expect(auditEventText(event)).toBe(
      'policy.changed info fs: revision 3 -> 4, policy.network.allow launch.args',
    );
  });

  it('says when a policy change was made to config.json outside Warden', () => {
    const event = auditEventSchema.parse({
      kind: 'policy.changed',
      ts,
      outcome: 'info',
      revisionBefore: 0,
      revisionAfter: 0,
      changed: ['guards.limits.pids'],
      via: 'file',
    });
    expect(auditEventText(event)).toBe(
      'policy.changed info: edited in config.json, revision 0 -> 0, guards.limits.pids',
    );
    expect(() => auditEventSchema.parse({ ...event, via: 'panel' })).toThrow();
  });

  it('defaults the page size and bounds it', () => {
    expect(auditQuerySchema.parse({}).limit).toBe(50);
    expect(auditQuerySchema.safeParse({ limit: 5000 }).success).toBe(false);
    expect(auditQuerySchema.safeParse({ kind: ['mcp.request', 'nope'] }).success).toBe(false);
  });
});
