import { describe, expect, it } from 'vitest';
import {
  decideGrantInputSchema,
  grantDecidedEventSchema,
  pendingGrantSchema,
} from '../../app/contract/grants';
import { auditEventSchema } from '../../app/audit/audit-event';
import {
  grantDecidedAudit,
  grantRequestedAudit,
  networkDecisionAudit,
} from '../../main/egress/egress-audit';
import { GrantInbox, type GrantRequest, type PersistedRule } from '../../main/egress/grant-inbox';

const req = (over: Partial<GrantRequest> = {}): GrantRequest => ({
  server: 'srv',
  instance: 'i1',
  host: 'api.test',
  port: 443,
  pattern: 'api.test:443',
  timeoutMs: 60_000,
  ...over,
});

describe('grant inbox', () => {
  it('shares one grant between waiters and answers them all', async () => {
    const inbox = new GrantInbox();
    const a = inbox.request(req());
    const b = inbox.request(req());
    const c = inbox.request(req({ instance: 'i2' }));
    const [g1, g2] = inbox.pending();
    expect(pendingGrantSchema.parse(g1)).toMatchObject({ waiting: 2, instance: 'i1' });
    expect(g2!.instance).toBe('i2');
    expect(decideGrantInputSchema.safeParse({ id: g1!.id, decision: 'sometimes' }).success).toBe(
      false,
    );
    await inbox.decide(g1!.id, 'allow-session');
    expect(await a).toEqual({ outcome: 'allow-session', grantId: g1!.id });
    expect(await b).toEqual({ outcome: 'allow-session', grantId: g1!.id });
    inbox.cancelInstance('i2');
    expect((await c).outcome).toBe('cancelled');
    expect(inbox.pending()).toEqual([]);
  });

  it('"always" is saved before the waiters proceed; a failed save leaves the grant pending', async () => {
    const saved: [string, PersistedRule][] = [];
    let fail = true;
    const inbox = new GrantInbox({
      persistRule: (server, rule) => {
        if (fail) throw new Error('disk full');
        saved.push([server, rule]);
      },
    });
    const events: unknown[] = [];
    inbox.onDecided((e) => events.push(grantDecidedEventSchema.parse(e)));
    const p = inbox.request(req());
    const id = inbox.pending()[0]!.id;
    const r1 = await inbox.decide(id, 'deny-always');
    expect(r1.ok).toBe(false);
    if (!r1.ok) expect(r1.error.kind).toBe('persist-failed');
    if (!r1.ok) expect(r1.error.message).toMatch(/disk full/);
    expect(inbox.pending()).toHaveLength(1);
    fail = false;
    expect((await inbox.decide(id, 'deny-always')).ok).toBe(true);
    expect(saved).toEqual([['srv', { list: 'deny', pattern: 'api.test:443' }]]);
    expect((await p).outcome).toBe('deny-always');
    expect(events).toMatchObject([
      { outcome: 'deny-always', savedRule: { list: 'deny', pattern: 'api.test:443' } },
    ]);
    expect((await inbox.decide(id, 'deny')).ok).toBe(false);
  });

  it('times out, and caps pending grants per instance', async () => {
    const inbox = new GrantInbox({ maxPendingPerInstance: 2 });
    const t = inbox.request(req({ timeoutMs: 30 }));
    inbox.request(req({ host: 'b.test', timeoutMs: 30 })).catch(() => undefined);
    expect(await inbox.request(req({ host: 'c.test' }))).toEqual({ outcome: 'limit' });
    expect((await t).outcome).toBe('timeout');
  });

  it('maps egress and grant events onto the audit schema', () => {
    const inbox = new GrantInbox();
    let pending: unknown;
    inbox.onPending((g) => (pending = grantRequestedAudit(g)));
    void inbox.request(req());
    expect(auditEventSchema.parse(pending)).toMatchObject({
      kind: 'grant.requested',
      timeoutSeconds: 60,
    });
    const refused = networkDecisionAudit({
      kind: 'egress',
      instance: 'i1',
      server: 'srv',
      host: 'x.test',
      port: 443,
      decision: 'refused',
      reason: 'not-allowed',
      message: 'x.test:443 is not in network.allow',
      bytesUp: 0,
      bytesDown: 0,
      durationMs: 0,
      at: new Date().toISOString(),
    });
    expect(auditEventSchema.parse(refused)).toMatchObject({
      decision: 'deny',
      by: 'default',
      outcome: 'refused',
    });
    const decided = grantDecidedAudit({
      grant: inbox.pending()[0]!,
      outcome: 'timeout',
      at: new Date().toISOString(),
    });
    expect(auditEventSchema.parse(decided)).toMatchObject({ decision: 'deny', by: 'timeout' });
    inbox.cancelInstance('i1');
  });
});
