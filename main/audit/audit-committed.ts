/**
 * Whether a batch the writer thread took is in the log already. A thread that goes away while it
 * writes (it threw, or was stopped) gives no answer, and its last transaction may or may not have
 * committed; writing the batch again after a commit would record every event in it twice. A
 * batch is one transaction, so when it committed its rows are consecutive and come after every
 * row this store wrote before it (other processes may have written before and after it), and each
 * row's body is what preparing its snapshot gives again (the same redaction, the same canonical
 * JSON, the event's own time).
 */
import type Database from 'better-sqlite3';
import type { AuditRow } from '../../app/audit/audit-row';
import { type Snapshot, prepare } from './audit-prepare';
import { ROW_COLUMNS, type RawRow, decodeRow } from './audit-query';

/**
 * The id and chain fields of the batch's last row when the whole batch is in the log after the
 * row with id `after`; undefined when it is not (then nothing of it committed).
 */
export function committedBatch(
  db: Database.Database,
  batch: readonly Snapshot[],
  after: number,
): { id: number; hash: string; ts: string } | undefined {
  if (batch.length === 0) return undefined;
  const bodies = batch.map((s) => prepare(s.json, s.secrets).body);
  const last = db
    .prepare('SELECT id, hash, ts FROM audit WHERE id > ? AND body = ? ORDER BY id DESC LIMIT 1')
    .get(after + bodies.length - 1, bodies.at(-1)) as
    { id: number; hash: string; ts: string } | undefined;
  if (!last) return undefined;
  const run = db
    .prepare('SELECT body FROM audit WHERE id BETWEEN ? AND ? ORDER BY id')
    .pluck()
    .all(last.id - bodies.length + 1, last.id) as string[];
  const whole = run.length === bodies.length && run.every((body, i) => body === bodies[i]);
  return whole ? last : undefined;
}

/** The id of the newest row of the log (0 when it is empty). */
export function newestId(db: Database.Database): number {
  return (db.prepare('SELECT coalesce(max(id), 0) FROM audit').pluck().get() as number) ?? 0;
}

/** Rows `first` through `last` as the listeners get them, oldest first. */
export function rowsBetween(db: Database.Database, first: number, last: number): AuditRow[] {
  return (
    db
      .prepare(`SELECT ${ROW_COLUMNS} FROM audit WHERE id BETWEEN ? AND ? ORDER BY id`)
      .raw()
      .all(first, last) as RawRow[]
  ).map(decodeRow);
}
