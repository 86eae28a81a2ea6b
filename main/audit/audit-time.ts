/**
 * Time filters as id ranges. The writer keeps the `ts` column non-decreasing along the log (an
 * event older than the row before it is stored at that row's time; its own time stays in the
 * body), so the first row at or after a time is found by binary search over ids in ~20 point
 * lookups, and a `since` that matches nothing costs no scan of the whole log.
 */
import type Database from 'better-sqlite3';

/** The id of the first row whose ts is >= `ts` (or > `ts` when `strict`); undefined if none. */
export function firstIdFrom(db: Database.Database, ts: string, strict = false): number | undefined {
  // Two subqueries: `min(id), max(id)` in one SELECT would scan the table instead of two seeks.
  const ends = db
    .prepare('SELECT (SELECT min(id) FROM audit), (SELECT max(id) FROM audit)')
    .raw()
    .get() as [number | null, number | null];
  const [min, max] = ends;
  if (min === null || max === null) return undefined;
  // The first existing row at or after an id: robust to gaps in a tampered log.
  const at = db.prepare('SELECT id, ts FROM audit WHERE id >= ? ORDER BY id LIMIT 1').raw();
  const rowFrom = (id: number) => at.get(id) as [number, string];
  const reaches = (rowTs: string) => (strict ? rowTs > ts : rowTs >= ts);
  if (!reaches(rowFrom(max)[1])) return undefined;
  let lo = min;
  let hi = max;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (reaches(rowFrom(mid)[1])) hi = mid;
    else lo = mid + 1;
  }
  return rowFrom(lo)[0];
}

/** ISO timestamps compare as text; anything `Date` can parse is normalized to that form. */
export function normalizeTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
