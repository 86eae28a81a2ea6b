/**
 * Retention keeps `verify` meaningful: after pruning by age or size the log starts at an anchor,
 * the kept rows still verify, a recorded pruning backs the anchor, and rows removed from the start
 * without one, or edits after the anchor, are still found.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import { runAuditCommand } from './audit-cli';
import { type AuditStore, type AuditStoreOptions, openAuditStore } from './audit-store';
import { callEvent, netEvent, tamperWithRow } from './audit-test-events';
import { tempDirEach } from '../../test/helpers/temp-dir';

let home = '';
let store: AuditStore | undefined;
const day = (d: number) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString();

tempDirEach('warden-audit-retention-', (d) => (home = d));
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function open(options: Partial<AuditStoreOptions> = {}): AuditStore {
  const opened = openAuditStore({
    path: join(home, 'audit.db'),
    headFile: join(home, 'audit-head.json'),
    ...options,
  });
  if (!opened.ok) throw new Error(opened.error.message);
  store = opened.value;
  return store;
}

/** `perDay` rows on each of `days` days from 2026-01-01. */
async function fill(s: AuditStore, days: number, perDay: number): Promise<void> {
  for (let d = 0; d < days; d++) {
    for (let i = 0; i < perDay; i++) {
      const n = d * perDay + i;
      const ts = new Date(Date.UTC(2026, 0, 1 + d, 0, 0, i)).toISOString();
      s.append(n % 2 ? netEvent('github', n, ts) : callEvent('files', n, { word: `w${n}` }, ts));
    }
  }
  await s.flush();
}

async function oldest(s: AuditStore, n = 3): Promise<AuditRow[]> {
  return (await s.query({ since: '2000-01-01', limit: 1000 })).rows.slice(-n).reverse();
}

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (out += t) };
  const code = await runAuditCommand(args, io, { wardenHome: home });
  return { code, out };
}

describe('audit retention', () => {
  it('removes rows older than maxAgeDays and the log still verifies from its anchor', async () => {
    const s = open();
    await fill(s, 10, 30);
    const r = s.prune({ maxAgeDays: 3, maxSizeMb: null }, new Date(day(10)));
    expect(r).toEqual({ prunedRows: 210, throughId: 210, reason: 'max-age' });
    const [anchor, first] = await oldest(s);
    expect(anchor).toMatchObject({ id: 210, kind: 'audit.anchor', event: { prunedRows: 210 } });
    expect(first).toMatchObject({ id: 211 });
    expect(first!.ts >= day(7)).toBe(true);
    const pruned = (await s.query({ kind: 'audit.pruned' })).rows;
    expect(pruned).toHaveLength(1);
    expect(pruned[0]!.event).toMatchObject({
      throughId: 210,
      throughHash: anchor!.hash,
      reason: 'max-age',
      maxAgeDays: 3,
    });
    await s.flush();
    expect(s.verify()).toMatchObject({
      ok: true,
      rows: 91,
      prunedThrough: 210,
      headChecked: true,
    });
    // Search, list and export keep working over what is left.
    const found = (await s.query({ text: 'github', limit: 1000 })).rows;
    expect(found).toHaveLength(45);
    expect(found.every((row) => row.id > 210)).toBe(true);
    await s.close();
    store = undefined;
    const v = await cli('verify');
    expect(v.code).toBe(0);
    expect(v.out).toContain('rows 1-210 were removed by retention');
  });

  it('prunes again later: the anchor moves on and the chain still verifies', async () => {
    const s = open();
    await fill(s, 10, 30);
    s.prune({ maxAgeDays: 5, maxSizeMb: null }, new Date(day(10)));
    await fill(s, 1, 5);
    s.prune({ maxAgeDays: 2, maxSizeMb: null }, new Date(day(10)));
    const [anchor] = await oldest(s, 1);
    expect(anchor).toMatchObject({ id: 240, kind: 'audit.anchor', event: { prunedRows: 240 } });
    expect(s.verify()).toMatchObject({ ok: true, prunedThrough: 240 });
  });

  it('keeps the log under maxSizeMb by removing the oldest rows, in chunks', async () => {
    const s = open();
    for (let i = 0; i < 30_000; i++) s.append(callEvent('files', i, { pad: 'x'.repeat(200) }));
    await s.flush();
    const r = s.prune({ maxAgeDays: null, maxSizeMb: 2 });
    expect(r.reason).toBe('max-size');
    expect(r.prunedRows).toBeGreaterThan(20_000);
    // More than one chunk: one audit.pruned row per chunk, each backing the anchor of its time.
    expect((await s.query({ kind: 'audit.pruned' })).rows.length).toBeGreaterThanOrEqual(2);
    const db = new Database(join(home, 'audit.db'), { readonly: true });
    const [pages, free, size] = ['page_count', 'freelist_count', 'page_size'].map(
      (p) => db.pragma(p, { simple: true }) as number,
    );
    db.close();
    expect((pages! - free!) * size!).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(s.verify()).toMatchObject({ ok: true, prunedThrough: r.throughId });
  });

  it('never removes the newest row, and does nothing within the limits', async () => {
    const s = open();
    await fill(s, 2, 5);
    expect(s.prune({ maxAgeDays: 30, maxSizeMb: 100 }, new Date(day(3)))).toEqual({
      prunedRows: 0,
    });
    const r = s.prune({ maxAgeDays: 1, maxSizeMb: null }, new Date(day(400)));
    expect(r.throughId).toBe(9);
    expect(s.verify()).toMatchObject({ ok: true, rows: 2, prunedThrough: 9 });
  });

  it('rows deleted from the start behind a forged anchor, with no recorded pruning, still show', async () => {
    const s = open();
    await fill(s, 3, 10);
    await s.close();
    store = undefined;
    const db = new Database(join(home, 'audit.db'));
    const hash = db.prepare('SELECT hash FROM audit WHERE id = 12').pluck().get() as string;
    db.prepare('DELETE FROM audit WHERE id <= 12').run();
    db.prepare(
      `INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash) VALUES (12, '2026-01-01', 'audit.anchor', NULL, NULL, 'info', '', '{}', '', ?)`,
    ).run(hash);
    db.close();
    const v = await cli('verify');
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/no audit\.pruned row records that retention removed rows 1-12/);
  });

  it('an anchor anywhere but at the start, or an edit after the anchor, breaks the chain', async () => {
    const s = open();
    await fill(s, 4, 10);
    s.prune({ maxAgeDays: 2, maxSizeMb: null }, new Date(day(4)));
    await s.close();
    store = undefined;
    tamperWithRow(join(home, 'audit.db'), 26);
    const v = await cli('verify');
    expect(v.code).toBe(1);
    expect(v.out).toMatch(/^BROKEN at row 26: row 26 was changed/);
    const db2 = new Database(join(home, 'audit.db'));
    db2
      .prepare(`UPDATE audit SET body = replace(body, '"port":22', '"port":443') WHERE id = 26`)
      .run();
    expect((await cli('verify')).code).toBe(0);
    db2.prepare(`UPDATE audit SET kind = 'audit.anchor' WHERE id = 30`).run();
    db2.close();
    expect((await cli('verify')).out).toMatch(
      /^BROKEN at row 30: row 30 is a retention anchor, which only starts a log/,
    );
  });

  it('warden audit prune applies retention from the command line, and refuses a bad limit', async () => {
    const s = open();
    await fill(s, 3, 10);
    await s.close();
    store = undefined;
    const bad = await cli('prune', '--max-size-mb', '0');
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('--max-size-mb: expected a whole number of 1 or more, or none');
    const r = await cli('prune', '--max-age-days', '1', '--max-size-mb', 'none');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      'pruned 29 rows through row 29 (max-age; max age 1 days, max size none MB)\n',
    );
    const v = await cli('verify');
    expect(v.code).toBe(0);
    expect(v.out).toContain('the end matches the head recorded in');
  });
});
