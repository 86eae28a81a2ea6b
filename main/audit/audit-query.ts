/**
 * Reading the log: filters become one parameterized WHERE clause walked in id order with a
 * keyset cursor (never OFFSET), so a page costs the same however deep it is. Text search uses
 * the FTS5 index when the database has one, else LIKE over the newest {@link LIKE_WINDOW} rows.
 */
import {
  auditQuerySchema,
  type AuditPage,
  type AuditQuery,
  type AuditRow,
} from '../../app/audit/audit-row';
import type { AuditEvent } from '../../app/audit/audit-event';
import type { AuditDb } from './audit-db';

/** Without FTS5, text search looks at no more than this many of the newest rows. */
export const LIKE_WINDOW = 200_000;

export type RawRow = [
  number,
  string,
  string,
  string | null,
  string | null,
  string,
  string,
  string,
  string,
];
export const ROW_COLUMNS = 'id, ts, kind, server, instance, outcome, body, hash, prev_hash';

/** Decodes a row selected with {@link ROW_COLUMNS} in raw (array) mode. */
export function decodeRow(r: RawRow): AuditRow {
  return {
    id: r[0],
    ts: r[1],
    kind: r[2] as AuditRow['kind'],
    server: r[3],
    instance: r[4],
    outcome: r[5] as AuditRow['outcome'],
    event: JSON.parse(r[6]) as AuditEvent,
    hash: r[7],
    prevHash: r[8],
  };
}

export type AuditFilter = Omit<AuditQuery, 'cursor' | 'limit'>;

interface Where {
  sql: string;
  params: unknown[];
}

/** The WHERE clause for a filter; `after`/`before` bound the id (exclusive). */
export function buildWhere(
  adb: AuditDb,
  q: AuditFilter,
  bounds: { before?: number; after?: number },
): Where {
  const conds: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    conds.push(sql);
    params.push(...values);
  };
  if (q.server !== undefined) add('server = ?', q.server);
  if (q.instance !== undefined) add('instance = ?', q.instance);
  if (typeof q.kind === 'string') add('kind = ?', q.kind);
  else if (q.kind) add(`kind IN (${q.kind.map(() => '?').join(', ')})`, ...q.kind);
  if (q.outcome !== undefined) add('outcome = ?', q.outcome);
  if (q.since !== undefined) add('ts >= ?', normalizeTime(q.since));
  if (q.until !== undefined) add('ts <= ?', normalizeTime(q.until));
  if (bounds.before !== undefined) add('id < ?', bounds.before);
  if (bounds.after !== undefined) add('id > ?', bounds.after);
  const text = q.text?.trim();
  if (text) {
    const match = adb.fts ? ftsMatch(text) : undefined;
    if (match) add('id IN (SELECT rowid FROM audit_fts WHERE audit_fts MATCH ?)', match);
    else if (!adb.fts) {
      add('id > (SELECT coalesce(max(id), 0) FROM audit) - ?', LIKE_WINDOW);
      for (const word of text.split(/\s+/)) {
        add("text LIKE ? ESCAPE '\\'", `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
    }
  }
  return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

/** One page, newest first. Validates `q` (it may come from the untrusted renderer). */
export function queryPage(adb: AuditDb, input: AuditQuery): AuditPage {
  const q = auditQuerySchema.parse(input);
  const where = buildWhere(adb, q, { before: q.cursor });
  const rows = (
    adb.db
      .prepare(`SELECT ${ROW_COLUMNS} FROM audit ${where.sql} ORDER BY id DESC LIMIT ?`)
      .raw()
      .all(...where.params, q.limit + 1) as RawRow[]
  ).map(decodeRow);
  if (rows.length <= q.limit) return { rows };
  rows.length = q.limit;
  return { rows, nextCursor: rows[rows.length - 1]?.id };
}

/** Each word of the search as a quoted prefix term, all required; undefined when no word. */
export function ftsMatch(text: string): string | undefined {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(' AND ');
}

/** ISO timestamps compare as text; anything `Date` can parse is normalized to that form. */
export function normalizeTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
