import Database from 'better-sqlite3';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAuditDb } from './audit-db';
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
});
