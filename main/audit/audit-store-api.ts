/**
 * What the audit log store offers and how it is opened (see audit-store.ts for how it writes).
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { AuditPage, AuditQuery, AuditRow, AuditVerifyResult } from '../../app/audit/audit-row';
import type { AuditSecret } from '../../app/audit/redact';
import type { AuditRetention } from '../../app/audit/audit-settings';
import type { PruneResult } from './audit-retention';
import type { FloodGuardOptions } from './audit-flood-guard';
import type { AuditFilter } from './audit-query';

export interface AuditStoreOptions {
  /** Path of `audit.db` (`:memory:` in tests). */
  path: string;
  /** Events per transaction, and the queue length that triggers an immediate write. Default 500. */
  batchSize?: number;
  /** How long a partial batch waits before it is written. Default 10 ms. */
  flushDelayMs?: number;
  /**
   * How long a call's request may wait for its answer to be recorded with it in one row
   * (held-requests.ts). Default 10 ms; 0 records every request as it comes.
   */
  holdRequestsMs?: number;
  /** Queue length past which `append` writes synchronously. Default 50,000. */
  maxQueue?: number;
  secretsFor?: (server: string | undefined) => readonly AuditSecret[];
  /** How long after a failed write it is tried again. Default 1000 ms. */
  retryDelayMs?: number;
  /** Write failures (the events stay queued) and listener exceptions. Default: console.error. */
  onError?: (error: unknown) => void;
  /** Open for reading only (CLI list/verify/export): `append` throws. */
  readonly?: boolean;
  /** Build the FTS5 text index (default: when available). */
  fts?: boolean;
  /** How long a write waits for another connection's lock before it fails. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Clock for events appended without `ts`, and for the flood guard's windows. */
  now?: () => Date;
  /**
   * Coalesce repeated network decisions and sandbox refusals and hold each instance to a rate
   * budget (see audit-flood-guard.ts). Off unless given; the core turns it on.
   */
  floodGuard?: FloodGuardOptions;
  /**
   * Where the newest row's id and hash are recorded after each write (`audit-head.json` beside
   * the config), so that `verify` finds rows cut from the end. A writable store that opens a log
   * whose recorded head is gone writes an `audit.truncated` row first.
   */
  headFile?: string;
  /**
   * The built writer thread (writer-thread-client.ts): batches are then hashed and written on
   * that thread, off the one that appends. Without it (or once it failed) the store writes on
   * its own connection. Ignored for `:memory:` and read-only logs.
   */
  writerThread?: string;
  /**
   * Starts the writer thread this long after the store opens; until then the store writes on its
   * own connection. For a core that relays one session: a thread's start-up is CPU that the
   * server's own start-up, running beside it, would wait for.
   */
  writerThreadDelayMs?: number;
}

export interface AuditStore {
  readonly path: string;
  /** Queues an event; fills `ts` when absent. Throws only after `close` or on a read-only store. */
  append(event: AuditEventInput): void;
  /** Writes everything queued so far (and the recorded head, when there is a head file). */
  flush(): Promise<void>;
  /** Flushes, then closes the database. Idempotent. */
  close(): Promise<void>;
  /**
   * Called once per written batch with its rows; returns the unsubscribe function. With
   * `wanted`, rows are built for this listener only while it returns true (a relay that nobody
   * watches then spends nothing on them).
   */
  subscribe(listener: (rows: AuditRow[]) => void, wanted?: () => boolean): () => void;
  /** One page, newest first (events still queued are written first, so a query sees them). */
  query(q: AuditQuery): Promise<AuditPage>;
  /** Writes queued events, then every matching row as JSON Lines, oldest first. */
  exportJsonl(filter: AuditFilter, filePath: string): Promise<{ rows: number }>;
  /** Flushes the queue, then recomputes the whole chain. */
  verify(): AuditVerifyResult;
  /**
   * Removes the oldest rows by `retention` (see audit-retention.ts), after writing what is queued;
   * the log then starts at an anchor row and `verify` still checks every row kept.
   */
  prune(retention: AuditRetention, now?: Date): PruneResult;
  /** Events queued and not yet written (repeats and summaries being counted included). */
  pendingCount(): number;
}
