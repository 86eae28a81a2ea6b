/**
 * The grants of an instance whose egress started before its core: nothing is decided while they
 * wait, the core's inbox gets the waiting requests in order, and an instance that ends first has
 * them refused, then and afterwards.
 */
import { describe, expect, it } from 'vitest';
import { DeferredGrants } from '../../main/egress/deferred-grants';
import { GrantInbox, type GrantRequest } from '../../main/egress/grant-inbox';

const ask = (host: string, instance = 'i1'): GrantRequest => ({
  server: 's',
  instance,
  host,
  port: 443,
  pattern: `${host}:443`,
  timeoutMs: 60_000,
});

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('grants held until the core runs', () => {
  it('decides nothing while waiting, then asks the inbox in order', async () => {
    const grants = new DeferredGrants();
    const first = grants.request(ask('a.example'));
    const second = grants.request(ask('b.example'));
    expect(await settled(first)).toBe(false);
    const inbox = new GrantInbox();
    grants.forwardTo(inbox);
    expect(inbox.pending().map((g) => g.host)).toEqual(['a.example', 'b.example']);
    const [a, b] = inbox.pending();
    await inbox.decide(a!.id, 'allow-once');
    await inbox.decide(b!.id, 'deny');
    expect(await first).toMatchObject({ outcome: 'allow-once' });
    expect(await second).toMatchObject({ outcome: 'deny' });
    // Later requests go to the inbox directly.
    const later = grants.request(ask('c.example'));
    expect(inbox.pending().map((g) => g.host)).toEqual(['c.example']);
    inbox.cancelInstance('i1');
    expect(await later).toMatchObject({ outcome: 'cancelled' });
  });

  it('refuses the waits of an instance that ended before the core, and its later ones', async () => {
    const grants = new DeferredGrants();
    const waiting = grants.request(ask('a.example'));
    const other = grants.request(ask('b.example', 'i2'));
    grants.cancelInstance('i1');
    expect(await waiting).toEqual({ outcome: 'cancelled' });
    expect(await grants.request(ask('c.example'))).toEqual({ outcome: 'cancelled' });
    const inbox = new GrantInbox();
    grants.forwardTo(inbox);
    expect(inbox.pending().map((g) => g.host)).toEqual(['b.example']);
    inbox.cancelInstance('i2');
    expect(await other).toMatchObject({ outcome: 'cancelled' });
  });
});
