/**
 * Retention: removes the oldest rows of the log by age and by size, in chunks of one transaction
 * each, so that writers are never held up for long and a crash leaves a log that verifies. Each
 * chunk deletes rows from the log's start through some row N, puts an `audit.anchor` row with id N
 * and the hash of the removed row N in their place (the chain goes on from it), and appends an
 * `audit.pruned` row to the chain that records the same boundary. The newest row is never
 * removed. The file does not shrink: SQLite reuses the freed pages for new rows.
 */
import type { AuditEvent, AuditEventOf } from '../../app/audit/audit-event';
import type { AuditRetention } from '../../app/audit/audit-settings';
import { auditEventText } from '../../app/audit/audit-text';
import { canonicalJson } from '../../app/audit/canonical-json';
import type { AuditDb } from './audit-db';
import { GENESIS_HASH } from './audit-hash';
import { firstIdFrom } from './audit-time';

/** Rows removed per transaction. */
const CHUNK = 20_000;
/** Pruning by size goes down to this share of the limit, so it does not run again at once. */
const SIZE_SLACK = 0.9;
const DAY_MS = 86_400_000;

export interface PruneResult {
  prunedRows: number;
  /** The last removed row; the log now starts at the anchor with this id. */
  throughId?: number;
  reason?: 'max-age' | 'max-size';
}

/** The bytes the log's pages hold (free pages not counted). */
export function usedBytes(adb: AuditDb): number {
  const { db } = adb;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * pageSize;
}

interface Start {
  /** The first real (non-anchor) row. */
  firstId: number;
  anchor?: { id: number; prunedRows: number };
}

function logStart(adb: AuditDb): Start | undefined {
  const first = adb.db
    .prepare('SELECT id, kind, body FROM audit ORDER BY id LIMIT 1')
    .raw()
    .get() as [number, string, string] | undefined;
  if (!first) return undefined;
  const [id, kind, body] = first;
  if (kind !== 'audit.anchor') return { firstId: id };
  const prunedRows = (JSON.parse(body) as { prunedRows?: number }).prunedRows ?? 0;
  return { firstId: id + 1, anchor: { id, prunedRows } };
}

/** The last row to remove under `r` at `now`, and which limit asks for it. */
function target(
  adb: AuditDb,
  r: AuditRetention,
  now: Date,
  start: Start,
  lastId: number,
): { through: number; reason: 'max-age' | 'max-size' } | undefined {
  let best: { through: number; reason: 'max-age' | 'max-size' } | undefined;
  if (r.maxAgeDays !== null) {
    const cutoff = new Date(now.getTime() - r.maxAgeDays * DAY_MS).toISOString();
    const keep = firstIdFrom(adb.db, cutoff);
    const through = keep === undefined ? lastId : keep - 1;
    if (through >= start.firstId) best = { through, reason: 'max-age' };
  }
  if (r.maxSizeMb !== null) {
    const limit = r.maxSizeMb * 1024 * 1024;
    const used = usedBytes(adb);
    const rows = lastId - start.firstId + 1;
    if (used > limit && rows > 1) {
      const keep = Math.floor((limit * SIZE_SLACK) / (used / rows));
      const through = lastId - keep;
      if (through >= start.firstId && through > (best?.through ?? 0)) {
        best = { through, reason: 'max-size' };
      }
    }
  }
  if (!best) return undefined;
  // The newest row stays: it is the head that audit-head.json records.
  return { ...best, through: Math.min(best.through, lastId - 1) };
}

/**
 * Removes what `r` asks to remove. `append` writes one chained event inside the current
 * transaction (the store's writer); `onWritten` hears of each chunk's appended row once it has
 * committed. The full-text index keeps deletions as tombstones until merged, so it is merged
 * after a pruning, and pruning by size runs again (up to three passes) if the estimate fell short.
 */
export function pruneLog<W>(
  adb: AuditDb,
  r: AuditRetention,
  now: Date,
  append: (event: AuditEvent) => W,
  onWritten: (written: W) => void,
): PruneResult {
  let total: PruneResult = { prunedRows: 0 };
  for (let pass = 0; pass < 3; pass++) {
    const done = prunePass(adb, r, now, { append, onWritten });
    if (done.prunedRows === 0) break;
    total = { ...done, prunedRows: total.prunedRows + done.prunedRows };
    if (adb.fts) adb.db.prepare("INSERT INTO audit_fts(audit_fts) VALUES ('optimize')").run();
    if (done.reason !== 'max-size') break;
  }
  return total;
}

/** One pass of {@link pruneLog}, with its `append` and `onWritten`. */
function prunePass<W>(
  adb: AuditDb,
  r: AuditRetention,
  now: Date,
  out: { append: (event: AuditEvent) => W; onWritten: (written: W) => void },
): PruneResult {
  const { db } = adb;
  const lastId = (db.prepare('SELECT max(id) FROM audit').pluck().get() as number | null) ?? 0;
  const start0 = logStart(adb);
  if (!start0) return { prunedRows: 0 };
  const goal = target(adb, r, now, start0, lastId);
  if (!goal || goal.through < start0.firstId) return { prunedRows: 0 };
  const rowAt = db.prepare('SELECT hash, ts FROM audit WHERE id = ?').raw();
  const unindex = adb.fts
    ? db.prepare(
        "INSERT INTO audit_fts(audit_fts, rowid, text) SELECT 'delete', id, text FROM audit WHERE id BETWEEN ? AND ?",
      )
    : undefined;
  const index = adb.fts ? db.prepare('INSERT INTO audit_fts (rowid, text) VALUES (?, ?)') : null;
  const remove = db.prepare('DELETE FROM audit WHERE id BETWEEN ? AND ?');
  const insert = db.prepare(
    'INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)',
  );
  let pruned = 0;
  const written: W[] = [];
  const chunk = db.transaction((): boolean => {
    const start = logStart(adb);
    if (!start || start.firstId > goal.through) return false;
    const end = Math.min(start.firstId + CHUNK - 1, goal.through);
    const [hash, ts] = rowAt.get(end) as [string, string];
    const from = start.anchor?.id ?? start.firstId;
    const removed = end - start.firstId + 1;
    unindex?.run(from, end);
    remove.run(from, end);
    const anchor: AuditEventOf<'audit.anchor'> = {
      kind: 'audit.anchor',
      ts,
      outcome: 'info',
      throughId: end,
      throughTs: ts,
      prunedRows: (start.anchor?.prunedRows ?? 0) + removed,
    };
    const text = auditEventText(anchor);
    insert.run(
      end,
      ts,
      anchor.kind,
      anchor.outcome,
      text,
      canonicalJson(anchor),
      GENESIS_HASH,
      hash,
    );
    index?.run(end, text);
    const record: AuditEventOf<'audit.pruned'> = {
      kind: 'audit.pruned',
      ts: now.toISOString(),
      outcome: 'info',
      throughId: end,
      throughHash: hash,
      throughTs: ts,
      prunedRows: removed,
      reason: goal.reason,
      ...(r.maxAgeDays !== null ? { maxAgeDays: r.maxAgeDays } : {}),
      ...(r.maxSizeMb !== null ? { maxSizeMb: r.maxSizeMb } : {}),
    };
    written.push(out.append(record));
    pruned += removed;
    return end < goal.through;
  });
  // One chunk per transaction: other writers get their turn in between. The appended rows are
  // announced once their transaction has committed.
  for (let more = true; more;) {
    more = chunk.immediate();
    for (const w of written.splice(0)) out.onWritten(w);
  }
  return { prunedRows: pruned, throughId: goal.through, reason: goal.reason };
}
