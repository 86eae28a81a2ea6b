import Database from 'better-sqlite3';
import { chmod, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addOutcomeIndex, openAuditDb } from './audit-db';
import { selectRows } from './audit-query';
import { openAuditStore } from './audit-store';
import { callEvent } from './audit-test-events';
import { asOtherUser, noOtherUser } from '../../test/helpers/other-user';
import { tempDirEach } from '../../test/helpers/temp-dir';

let dir = '';
tempDirEach('warden-audit-db-', (d) => (dir = d));

describe('openAuditDb', () => {
  it('creates a WAL log with synchronous=NORMAL, the indexes and the FTS5 index', () => {
    const opened = openAuditDb(join(dir, 'audit.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    const { db, fts } = opened.value;
    expect(fts).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    const indexes = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'audit'")
      .pluck()
      .all();
    expect(indexes).toEqual(
      expect.arrayContaining(['audit_server_id', 'audit_kind_id', 'audit_instance_id']),
    );
    db.close();
  });

  const modes = async (path: string) =>
    Promise.all(['', '-wal', '-shm'].map(async (x) => (await stat(path + x)).mode & 0o777));

  it('creates the log, its -wal and its -shm 0600, whatever the umask: they hold tool arguments', async () => {
    const path = join(dir, 'audit.db');
    const opened = openAuditDb(path);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(await modes(path)).toEqual([0o600, 0o600, 0o600]);
    opened.value.db.close();
  });

  it('makes a log of this user that others may read (an older Warden made it) 0600', async () => {
    const path = join(dir, 'audit.db');
    const first = openAuditDb(path);
    if (!first.ok) throw new Error(first.error.message);
    for (const x of ['', '-wal', '-shm']) await chmod(path + x, 0o644);
    const again = openAuditDb(path, { readonly: true });
    if (!again.ok) throw new Error(again.error.message);
    expect(await modes(path)).toEqual([0o600, 0o600, 0o600]);
    again.value.db.close();
    first.value.db.close();
  });

  it.skipIf(noOtherUser !== undefined)(
    `cannot be read by another local user, even in a folder others may enter (${noOtherUser ?? 'as that user'})`,
    async () => {
      await chmod(dir, 0o755);
      const path = join(dir, 'audit.db');
      const opened = openAuditDb(path);
      if (!opened.ok) throw new Error(opened.error.message);
      expect(asOtherUser(['ls', dir]).status).toBe(0);
      for (const x of ['', '-wal', '-shm']) {
        const r = asOtherUser(['cat', path + x]);
        expect(r.status).not.toBe(0);
        expect(r.out).toContain('Permission denied');
      }
      opened.value.db.close();
    },
  );

  it('reports a missing log when opened read-only, without creating it', () => {
    const opened = openAuditDb(join(dir, 'none.db'), { readonly: true });
    expect(opened).toMatchObject({ ok: false, error: { kind: 'missing' } });
  });

  it('reports a file that is not a database, with a remedy', async () => {
    await writeFile(join(dir, 'audit.db'), 'this is not sqlite, just text '.repeat(100));
    const opened = openAuditDb(join(dir, 'audit.db'));
    expect(opened).toMatchObject({ ok: false, error: { kind: 'not-a-database' } });
    expect(opened.ok || opened.error.remedy).toMatch(/Move the file aside/);
  });

  it('refuses a log written by a newer schema', () => {
    const db = new Database(join(dir, 'audit.db'));
    db.pragma('user_version = 99');
    db.close();
    expect(openAuditDb(join(dir, 'audit.db'))).toMatchObject({
      ok: false,
      error: { kind: 'newer-schema' },
    });
  });

  it('walks the log by id even where an earlier build recorded statistics of it when tiny', async () => {
    // Earlier builds ran PRAGMA optimize at close, which recorded the statistics of a new log (one
    // row) and never updated them as it grew: with them SQLite walked the whole table for a lookup
    // by id (the audit list's next page, time filters, retention's search for its cut-off).
    const path = join(dir, 'audit.db');
    const store = openAuditStore({ path });
    if (!store.ok) throw new Error(store.error.message);
    store.value.append(callEvent('fs', 1, {}));
    await store.value.close();
    const raw = new Database(path);
    raw.exec('ANALYZE');
    const insert = raw.prepare(
      "INSERT INTO audit (ts, kind, server, instance, outcome, text, body, prev_hash, hash) VALUES ('2026-12-01T00:00:00.000Z', 'mcp.request', 'fs', 'fs#1', 'ok', 'x', '{}', '', '')",
    );
    raw.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run();
    })();
    raw.close();

    const opened = openAuditDb(path);
    if (!opened.ok) throw new Error(opened.error.message);
    const { db } = opened.value;
    const plan = (sql: string) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => (r as { detail: string }).detail)
        .join('; ');
    expect(plan('SELECT id, ts FROM audit WHERE id >= 5 ORDER BY id LIMIT 1')).toMatch(
      /INTEGER PRIMARY KEY/,
    );
    expect(plan('SELECT id FROM audit WHERE id < 9000 ORDER BY id DESC LIMIT 101')).toMatch(
      /INTEGER PRIMARY KEY/,
    );
    expect(db.prepare('SELECT count(*) FROM sqlite_stat1').pluck().get()).toBe(0);
    db.close();
  });

  it('leaves no statistics behind when the store closes', async () => {
    const path = join(dir, 'audit.db');
    const store = openAuditStore({ path });
    if (!store.ok) throw new Error(store.error.message);
    store.value.append(callEvent('fs', 1, {}));
    await store.value.query({ limit: 10, server: 'fs' });
    await store.value.close();
    const raw = new Database(path, { readonly: true });
    const stats = raw
      .prepare("SELECT name FROM sqlite_schema WHERE name GLOB 'sqlite_stat*'")
      .pluck()
      .all() as string[];
    for (const t of stats) expect(raw.prepare(`SELECT count(*) FROM ${t}`).pluck().get()).toBe(0);
    raw.close();
  });

  it('filters by a refused or failed outcome through its index, on a new log and once added to an old one', () => {
    const path = join(dir, 'audit.db');
    const opened = openAuditDb(path);
    if (!opened.ok) throw new Error(opened.error.message);
    const { db } = opened.value;
    const plan = (outcome: 'refused' | 'error' | 'info' | 'ok') => {
      const sel = selectRows(opened.value, { outcome }, { before: 100 });
      return db
        .prepare(`EXPLAIN QUERY PLAN SELECT audit.id ${sel.sql} ORDER BY ${sel.id} DESC LIMIT 51`)
        .all(...sel.params)
        .map((r) => (r as { detail: string }).detail)
        .join('; ');
    };
    expect(plan('refused')).toMatch(/INDEX audit_rare_outcome_id/);
    expect(plan('error')).toMatch(/INDEX audit_rare_outcome_id/);
    // `ok` and `info` are most of a log: walked by id, newest first, they fill a page at once.
    expect(plan('ok')).not.toMatch(/outcome_id/);
    expect(plan('info')).not.toMatch(/outcome_id/);

    // A log created before the index: the outcome filter walks the log until the index is added.
    db.exec('DROP INDEX audit_rare_outcome_id');
    expect(plan('refused')).not.toMatch(/outcome_id/);
    addOutcomeIndex(db);
    expect(plan('refused')).toMatch(/INDEX audit_rare_outcome_id/);
    db.close();
  });
});
