import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import { err } from '../../app/result';
import { callEvent } from '../audit/audit-test-events';
import { openAuditStore } from '../audit/audit-store';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { AuditNotOpenError, DeferredAuditStore } from './deferred-audit';

let dir = '';
tempDirEach('warden-deferred-audit-', (d) => (dir = d));

const realOpener = () => () =>
  Promise.resolve(
    openAuditStore({
      path: join(dir, 'audit.db'),
      headFile: join(dir, 'audit-head.json'),
      flushDelayMs: 0,
    }),
  );

/** Every row of the log, oldest first. */
async function rowsOf(store: DeferredAuditStore): Promise<AuditRow[]> {
  return (await store.query({ limit: 1000 })).rows.slice().reverse();
}

describe('DeferredAuditStore', () => {
  it('writes the events appended before the open first, in order, with the chain intact', async () => {
    const store = new DeferredAuditStore(join(dir, 'audit.db'), realOpener());
    const args = { path: '/srv/a' };
    for (let n = 1; n <= 5; n++) store.append(callEvent('fs', n, n === 1 ? args : {}));
    // The caller's object changes after the append: the record keeps what it was.
    args.path = '/etc/shadow';
    expect(store.isOpen()).toBe(false);
    expect(store.pendingCount()).toBe(5);
    await store.open();
    for (let n = 6; n <= 8; n++) store.append(callEvent('fs', n, {}));
    await store.flush();

    const rows = await rowsOf(store);
    expect(rows.map((r) => (r.event as { requestId: number }).requestId)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    expect((rows[0]!.event as { args: unknown }).args).toEqual({ path: '/srv/a' });
    expect(store.verify()).toMatchObject({ ok: true, rows: 8 });
    await store.close();
  });

  it('stamps each queued event with the time it was appended, not the time of the open', async () => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const store = new DeferredAuditStore(
      join(dir, 'audit.db'),
      realOpener(),
      () => new Date(clock),
    );
    store.append(callEvent('fs', 1, {}));
    clock += 60_000;
    store.append(callEvent('fs', 2, {}, '2026-03-01T10:00:00.000Z'));
    await store.open();
    await store.flush();
    expect((await rowsOf(store)).map((r) => r.ts)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-03-01T10:00:00.000Z',
    ]);
    await store.close();
  });

  it('writes everything on close even if it was never opened (an orderly end loses nothing)', async () => {
    const store = new DeferredAuditStore(join(dir, 'audit.db'), realOpener());
    for (let n = 1; n <= 3; n++) store.append(callEvent('fs', n, {}));
    await store.close();
    expect(() => store.append(callEvent('fs', 4, {}))).toThrow(/closed/);
    const reopened = openAuditStore({ path: join(dir, 'audit.db') });
    if (!reopened.ok) throw new Error(reopened.error.message);
    expect(reopened.value.verify()).toMatchObject({ ok: true, rows: 3 });
    await reopened.value.close();
  });

  it('keeps the queue when the database cannot be opened, and writes it on a later open', async () => {
    let fail = true;
    const real = realOpener();
    const store = new DeferredAuditStore(join(dir, 'audit.db'), () =>
      fail
        ? Promise.resolve(
            err({ kind: 'open-failed' as const, message: 'disk gone', remedy: 'mount it' }),
          )
        : real(),
    );
    store.append(callEvent('fs', 1, {}));
    await expect(store.open()).rejects.toBeInstanceOf(AuditNotOpenError);
    await expect(store.query({ limit: 10 })).rejects.toThrow(AuditNotOpenError);
    store.append(callEvent('fs', 2, {}));
    fail = false;
    await store.open();
    await store.flush();
    expect((await rowsOf(store)).map((r) => (r.event as { requestId: number }).requestId)).toEqual([
      1, 2,
    ]);
    await store.close();
  });

  it('delivers written batches to a listener that subscribed before the open, until it leaves', async () => {
    const store = new DeferredAuditStore(join(dir, 'audit.db'), realOpener());
    const seen: number[] = [];
    const off = store.subscribe((rows) => seen.push(...rows.map((r) => r.id)));
    store.append(callEvent('fs', 1, {}));
    await store.open();
    await store.flush();
    expect(seen).toEqual([1]);
    off();
    store.append(callEvent('fs', 2, {}));
    await store.flush();
    expect(seen).toEqual([1]);
    await store.close();
  });
});
