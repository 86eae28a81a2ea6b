/**
 * Recomputes the hash chain from the first row to the last, one row at a time (a million rows
 * never sit in memory), and names the first row where it breaks: an edited row (its hash does not
 * match its contents), a missing row (ids skip) or a row that no longer links to its predecessor.
 *
 * After retention, the log starts at an `audit.anchor` row that carries the hash of the last
 * removed row: the chain verifies from there, and an `audit.pruned` row inside the chain must
 * record the same boundary, so rows cut from the start without a recorded pruning still show.
 * Rows cut from the end are found against the head recorded outside the log (audit-head.ts), and
 * a truncation noticed when the log was opened stays in it as an `audit.truncated` row.
 *
 * What a hash chain without a key cannot show: a log rewritten whole, head file included.
 */
import type Database from 'better-sqlite3';
import type { AuditVerifyResult } from '../../app/audit/audit-row';
import { GENESIS_HASH, rowHash } from './audit-hash';
import { type AuditHead, checkHead } from './audit-head';
import type { RawRowHead } from './audit-query';

type VerifyRaw = [...RawRowHead, text: string, body: string, prevHash: string, hash: string];

type Broken = Extract<AuditVerifyResult, { ok: false }>;

const broken = (firstBrokenId: number, problem: Broken['problem'], reason: string): Broken => ({
  ok: false,
  firstBrokenId,
  problem,
  reason,
});

/** Verifies the whole chain in `db`, and its end against `head` when one was recorded. */
export function verifyChain(
  db: Database.Database,
  options: { head?: AuditHead } = {},
): AuditVerifyResult {
  const stmt = db
    .prepare(
      'SELECT id, ts, kind, server, instance, outcome, text, body, prev_hash, hash FROM audit ORDER BY id',
    )
    .raw();
  let expected = 1;
  let prev = GENESIS_HASH;
  let anchor: { id: number; hash: string } | undefined;
  let backed = false;
  let rows = 0;
  for (const r of stmt.iterate() as IterableIterator<VerifyRaw>) {
    const [id, ts, kind, server, instance, outcome, text, body, prevHash, hash] = r;
    if (kind === 'audit.anchor') {
      if (rows > 0 || anchor) {
        return broken(id, 'edited', `row ${id} is a retention anchor, which only starts a log`);
      }
      anchor = { id, hash };
      expected = id + 1;
      prev = hash;
      continue;
    }
    if (id !== expected) {
      return broken(
        expected,
        'missing',
        expected === 1
          ? `row 1 is missing: the log starts at row ${id}`
          : `row ${expected} is missing: row ${expected - 1} is followed by row ${id} (rows were deleted, or row ${id} was inserted)`,
      );
    }
    if (prevHash !== prev) {
      return broken(
        id,
        'relinked',
        id === 1
          ? 'row 1 does not start the chain (its prev_hash is not the genesis hash)'
          : `row ${id} does not link to row ${id - 1} (prev_hash differs): a row before it was replaced or re-hashed`,
      );
    }
    if (rowHash(prev, { id, ts, kind, server, instance, outcome, text, body }) !== hash) {
      return broken(
        id,
        'edited',
        `row ${id} was changed after it was written (its contents do not match its hash)`,
      );
    }
    if (kind === 'audit.pruned' && anchor) {
      const p = JSON.parse(body) as { throughId?: number; throughHash?: string };
      if (p.throughId === anchor.id && p.throughHash === anchor.hash) backed = true;
    }
    if (kind === 'audit.truncated') {
      const t = JSON.parse(body) as { reason?: string };
      return broken(id, 'truncated', `the log was cut before row ${id}: ${t.reason ?? ''}`);
    }
    prev = hash;
    expected += 1;
    rows += 1;
  }
  if (anchor && !backed) {
    return broken(
      anchor.id + 1,
      'missing',
      `the log starts after row ${anchor.id}, and no audit.pruned row records that retention removed rows 1-${anchor.id}: rows were deleted from the start`,
    );
  }
  const head = checkHead(db, options.head);
  if (head.kind === 'truncated') return broken(head.lastId + 1, 'truncated', head.reason);
  return {
    ok: true,
    rows,
    headHash: prev,
    ...(anchor ? { prunedThrough: anchor.id } : {}),
    headChecked: head.kind === 'ok',
  };
}
