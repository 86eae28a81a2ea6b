/**
 * Recomputes the hash chain from the first row to the last, one row at a time (a million rows
 * never sit in memory), and names the first row where it breaks: an edited row (its hash does not
 * match its contents), a missing row (ids skip) or a row that no longer links to its predecessor.
 *
 * What a hash chain without a key cannot show: rows cut from the end, or a log rewritten whole
 * from some row on. Keep the `headHash` of a good verify somewhere else to detect those.
 */
import type Database from 'better-sqlite3';
import type { AuditVerifyResult } from '../../app/audit/audit-row';
import { GENESIS_HASH, rowHash } from './audit-hash';

type VerifyRaw = [
  number,
  string,
  string,
  string | null,
  string | null,
  string,
  string,
  string,
  string,
  string,
];

/** Verifies the whole chain in `db`. */
export function verifyChain(db: Database.Database): AuditVerifyResult {
  const stmt = db
    .prepare(
      'SELECT id, ts, kind, server, instance, outcome, text, body, prev_hash, hash FROM audit ORDER BY id',
    )
    .raw();
  let expected = 1;
  let prev = GENESIS_HASH;
  for (const r of stmt.iterate() as IterableIterator<VerifyRaw>) {
    const [id, ts, kind, server, instance, outcome, text, body, prevHash, hash] = r;
    if (id !== expected) {
      return {
        ok: false,
        firstBrokenId: expected,
        problem: 'missing',
        reason:
          expected === 1
            ? `row 1 is missing: the log starts at row ${id}`
            : `row ${expected} is missing: row ${expected - 1} is followed by row ${id} (rows were deleted, or row ${id} was inserted)`,
      };
    }
    if (prevHash !== prev) {
      return {
        ok: false,
        firstBrokenId: id,
        problem: 'relinked',
        reason:
          id === 1
            ? 'row 1 does not start the chain (its prev_hash is not the genesis hash)'
            : `row ${id} does not link to row ${id - 1} (prev_hash differs): a row before it was replaced or re-hashed`,
      };
    }
    if (rowHash(prev, { id, ts, kind, server, instance, outcome, text, body }) !== hash) {
      return {
        ok: false,
        firstBrokenId: id,
        problem: 'edited',
        reason: `row ${id} was changed after it was written (its contents do not match its hash)`,
      };
    }
    prev = hash;
    expected += 1;
  }
  return { ok: true, rows: expected - 1, headHash: prev };
}
