/**
 * The loaded audit rows, newest first, bounded. New rows arrive oldest first in batches; older
 * pages arrive newest first. Both folds return a new array (one copy per fold, never per row), so
 * a frame's worth of live rows costs one pass over the buffer.
 */
import type { AuditRow } from '../../../../app/audit/audit-row';

/** Rows kept in the page; the oldest go first when live rows push past it. */
export const AUDIT_BUFFER_MAX = 100_000;

/** Puts `batch` (oldest first, possibly overlapping what is loaded) in front of `rows`. */
export function foldNewer(
  rows: readonly AuditRow[],
  batch: readonly AuditRow[],
  max = AUDIT_BUFFER_MAX,
): { rows: AuditRow[]; added: number; dropped: number } {
  const newest = rows[0]?.id ?? 0;
  const fresh: AuditRow[] = [];
  for (let i = batch.length - 1; i >= 0; i--) {
    const row = batch[i]!;
    if (row.id > newest) fresh.push(row);
  }
  // A batch is oldest first, but guard against out-of-order arrivals anyway.
  if (fresh.length > 1 && !isDescending(fresh)) fresh.sort((a, b) => b.id - a.id);
  if (fresh.length === 0) return { rows: rows as AuditRow[], added: 0, dropped: 0 };
  const keepOld = Math.max(0, Math.min(rows.length, max - fresh.length));
  const out = new Array<AuditRow>(Math.min(max, fresh.length + keepOld));
  const headLen = Math.min(fresh.length, max);
  for (let i = 0; i < headLen; i++) out[i] = fresh[i]!;
  for (let i = 0; i < keepOld; i++) out[headLen + i] = rows[i]!;
  return { rows: out, added: headLen, dropped: rows.length - keepOld };
}

/** Appends an older page (newest first) behind `rows`, up to `max`. */
export function foldOlder(
  rows: readonly AuditRow[],
  page: readonly AuditRow[],
  max = AUDIT_BUFFER_MAX,
): AuditRow[] {
  const oldest = rows.at(-1)?.id ?? Number.POSITIVE_INFINITY;
  const older = page.filter((r) => r.id < oldest);
  return rows.concat(older.slice(0, Math.max(0, max - rows.length)));
}

function isDescending(rows: readonly AuditRow[]): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i - 1]!.id <= rows[i]!.id) return false;
  return true;
}
