import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditStore, openAuditStore } from './audit-store';
import { netEvent } from './audit-test-events';
import { firstIdFrom } from './audit-time';
import { tempDirEach } from '../../test/helpers/temp-dir';

let dir = '';
let store: AuditStore;
const minute = (m: number) => new Date(Date.UTC(2026, 10, 1, 0, m)).toISOString();
const ids = async (q: Parameters<AuditStore['query']>[0]) =>
  (await store.query({ limit: 1000, ...q })).rows.map((r) => r.id);

tempDirEach('warden-audit-time-', (d) => (dir = d));
beforeEach(() => {
  const opened = openAuditStore({ path: join(dir, 'audit.db') });
  if (!opened.ok) throw new Error(opened.error.message);
  store = opened.value;
});
afterEach(async () => {
  await store.close();
});

describe('audit time filters', () => {
  it('keeps the row ts non-decreasing while the event keeps its own ts', async () => {
    store.append(netEvent('a', 1, minute(10)));
    store.append(netEvent('a', 2, minute(5)));
    store.append(netEvent('a', 3, '2026-11-01T01:20:00+01:00'));
    await store.flush();
    const rows = (await store.query({})).rows.reverse();
    expect(rows.map((r) => r.ts)).toEqual([minute(10), minute(10), minute(20)]);
    expect(rows.map((r) => r.event.ts)).toEqual([minute(10), minute(5), minute(20)]);
    expect(store.verify()).toMatchObject({ ok: true, rows: 3 });
  });

  it('bounds since and until exactly, including none and all', async () => {
    for (let i = 1; i <= 100; i += 1) store.append(netEvent('a', i, minute(i)));
    await store.flush();
    expect(await ids({ since: minute(98) })).toEqual([100, 99, 98]);
    expect(await ids({ until: minute(3) })).toEqual([3, 2, 1]);
    expect(await ids({ since: minute(40), until: minute(42) })).toEqual([42, 41, 40]);
    expect(await ids({ since: '2026-11-01T00:40:30Z', until: '2026-11-01T00:41:30Z' })).toEqual([
      41,
    ]);
    expect(await ids({ since: minute(500) })).toEqual([]);
    expect(await ids({ until: '2020-01-01T00:00:00Z' })).toEqual([]);
    expect(await ids({ since: '2020-01-01T00:00:00Z' })).toHaveLength(100);
    expect(await ids({ until: minute(500) })).toHaveLength(100);
  });

  it('finds the bound across equal timestamps and id gaps', async () => {
    for (let i = 1; i <= 50; i += 1) store.append(netEvent('a', i, minute(Math.ceil(i / 10))));
    await store.flush();
    await store.close();
    const db = new Database(join(dir, 'audit.db'));
    db.prepare('DELETE FROM audit WHERE id BETWEEN 18 AND 24').run();
    expect(firstIdFrom(db, minute(3))).toBe(25);
    expect(firstIdFrom(db, minute(2))).toBe(11);
    expect(firstIdFrom(db, minute(2), true)).toBe(25);
    expect(firstIdFrom(db, minute(5), true)).toBeUndefined();
    db.close();
    const opened = openAuditStore({ path: join(dir, 'audit.db') });
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.value;
    expect(await ids({ since: minute(2), until: minute(2) })).toEqual([17, 16, 15, 14, 13, 12, 11]);
  });

  it('answers on an empty log', async () => {
    expect(await ids({ since: minute(1), until: minute(2) })).toEqual([]);
  });
});
