/**
 * Writes one batch of queued audit events in one IMMEDIATE transaction, extending the hash chain
 * from the head it reads inside that transaction (so two writers on one file still form one chain).
 */
import type Database from 'better-sqlite3';
import type { AuditEvent } from '../../app/audit/audit-event';
import type { AuditRow } from '../../app/audit/audit-row';
import type { AuditDb } from './audit-db';
import { GENESIS_HASH, type HashedRow, rowHash } from './audit-hash';

/**
 * An event ready to store: redacted, summarized and serialized (plain strings, so that it can be
 * handed to the writer thread as it is); the id comes at write time.
 */
export type Pending = Omit<HashedRow, 'id'>;

/** What a written batch gives back: its rows (when asked for) and the new head of the chain. */
export interface Written {
  rows: AuditRow[] | undefined;
  head: { id: number; hash: string; ts: string } | undefined;
}

/** One IMMEDIATE transaction per batch; the chain head is read inside it, so it is never stale. */
export function prepareWriter(adb: AuditDb, wantRows: () => boolean) {
  const { db } = adb;
  const head = db.prepare('SELECT id, hash, ts FROM audit ORDER BY id DESC LIMIT 1').raw();
  const insert = db.prepare(
    'INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const index = adb.fts ? db.prepare('INSERT INTO audit_fts (rowid, text) VALUES (?, ?)') : null;
  const tx: Database.Transaction<(batch: Pending[]) => Written> = db.transaction(
    (batch: Pending[]) => {
      const last = head.get() as [number, string, string] | undefined;
      let id = last?.[0] ?? 0;
      let prev = last?.[1] ?? GENESIS_HASH;
      let prevTs = last?.[2] ?? '';
      const rows: AuditRow[] | undefined = wantRows() ? [] : undefined;
      for (const p of batch) {
        id += 1;
        // The column never goes back in time (see audit-time.ts); the event keeps its own ts.
        const ts = p.ts < prevTs ? prevTs : p.ts;
        const hash = rowHash(prev, { ...p, id, ts });
        insert.run(id, ts, p.kind, p.server, p.instance, p.outcome, p.text, p.body, prev, hash);
        index?.run(id, p.text);
        rows?.push({
          id,
          ts,
          kind: p.kind as AuditRow['kind'],
          server: p.server,
          instance: p.instance,
          outcome: p.outcome as AuditRow['outcome'],
          event: JSON.parse(p.body) as AuditEvent,
          hash,
          prevHash: prev,
        });
        prev = hash;
        prevTs = ts;
      }
      return { rows, head: id > 0 ? { id, hash: prev, ts: prevTs } : undefined };
    },
  );
  return (batch: Pending[]) => tx.immediate(batch);
}
