/**
 * A page of the log for a query that may come from the untrusted renderer: validated here with
 * the contract's schema, then read as audit-query.ts selects. Apart from the rest of the store,
 * which loads it on the first query: a core that only relays a session loads no zod for its log.
 */
import { type AuditPage, type AuditQuery, auditQuerySchema } from '../../app/audit/audit-row';
import type { AuditDb } from './audit-db';
import { ROW_COLUMNS, type RawRow, decodeRow, selectRows } from './audit-query';

/** One page, newest first. Validates `input` first. */
export function queryPage(adb: AuditDb, input: AuditQuery): AuditPage {
  const q = auditQuerySchema.parse(input);
  const sel = selectRows(adb, q, { before: q.cursor });
  const rows = (
    adb.db
      .prepare(`SELECT ${ROW_COLUMNS} ${sel.sql} ORDER BY ${sel.id} DESC LIMIT ?`)
      .raw()
      .all(...sel.params, q.limit + 1) as RawRow[]
  ).map(decodeRow);
  if (rows.length <= q.limit) return { rows };
  rows.length = q.limit;
  return { rows, nextCursor: rows[rows.length - 1]?.id };
}
