/**
 * The audit log store. `append` only queues a snapshot (the event's JSON and its secrets, taken at
 * once, so later changes to the caller's objects or secrets cannot alter the record; see
 * audit-prepare.ts): redaction, summary and serialization happen where the batch is written, on
 * the writer thread when there is one. Batches are written in one transaction each,
 * after `flushDelayMs` or as soon as `batchSize` events wait. The queue is bounded by writing
 * synchronously past `maxQueue`: audit events are never dropped. A failed write keeps its events
 * queued (past `maxQueue` too: memory is spent rather than records lost), reports through
 * `onError` and is retried every `retryDelayMs`; `flush` and `close` reject with the error.
 *
 * Redaction: `secretsFor(server)` returns the secrets to strip from an event of that server (it is
 * called with `undefined` for events without one) and is asked at `append`. Returning every known
 * secret for every server is the safe choice; the store does not cache the answer.
 *
 * A call answered at once is one row: its request is held until the answer, or until anything
 * else is recorded (held-requests.ts).
 *
 * Volume a hostile server controls: with `floodGuard`, repeated network decisions and sandbox
 * refusals are coalesced and each instance is held to a rate budget (audit-flood-guard.ts); with
 * `headFile`, the newest row is recorded outside the log so that `verify` finds rows cut from its
 * end (audit-head.ts); `prune` applies retention (audit-retention.ts).
 */
import type { AuditEvent, AuditEventInput } from '../../app/audit/audit-event';
import type { AuditPage, AuditQuery, AuditRow, AuditVerifyResult } from '../../app/audit/audit-row';
import { ok, type Result } from '../../app/result';
import type { AuditRetention } from '../../app/audit/audit-settings';
import { type AuditDb, type AuditStoreError, openAuditDb } from './audit-db';
import { type PruneResult, pruneLog } from './audit-retention';
import { exportJsonl } from './audit-export';
import { HeadWriter, checkHead, newestHead, readHead } from './audit-head';
import { auditFloodGuard } from './audit-flood-guard';
import type { AuditFilter } from './audit-query';
import { newestId } from './audit-committed';
import { RowListeners } from './audit-listeners';
import { normalizeTime } from './audit-time';
import { verifyChain } from './audit-verify';
import { type AuditSecret, redactSecrets } from '../../app/audit/redact';
import { type Snapshot, pending, prepare, snapshot, snapshotAt } from './audit-prepare';
import { type Pending, type Written, prepareWriter } from './audit-writer';
import type { Coalescer } from './coalescer';
import { ThreadBatches } from './thread-batches';
import { HeldRequests } from './held-requests';
import type { AuditStore, AuditStoreOptions } from './audit-store-api';

export type { AuditStore, AuditStoreOptions } from './audit-store-api';
export type { AuditStoreError } from './audit-db';
export type { AuditFilter } from './audit-query';
export type { PruneResult } from './audit-retention';

/** Opens (or creates) the audit log. */
export function openAuditStore(options: AuditStoreOptions): Result<AuditStore, AuditStoreError> {
  const opened = openAuditDb(options.path, options);
  if (!opened.ok) return opened;
  return ok(new SqliteAuditStore(opened.value, options));
}

const NO_SECRETS: readonly [] = Object.freeze([]);

/** Reads a page for a query; loaded with the first query (with zod, which validates it). */
let pageReader: Promise<typeof import('./audit-page')> | undefined;

/**
 * The secrets of this moment, kept until the batch is written: a frozen list as it is (the core's
 * is), any other as a copy, so that a later change to the caller's list cannot undo a redaction.
 */
function secretsNow(secrets: readonly AuditSecret[] | undefined): readonly AuditSecret[] {
  if (!secrets || secrets.length === 0) return NO_SECRETS;
  return Object.isFrozen(secrets) ? secrets : secrets.slice();
}

class SqliteAuditStore implements AuditStore {
  readonly path: string;
  private readonly queue: Snapshot[] = [];
  private readonly listeners: RowListeners;
  private readonly batchSize: number;
  private readonly flushDelayMs: number;
  private readonly maxQueue: number;
  private readonly retryDelayMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly writeBatch: ((batch: Pending[]) => Written) | undefined;
  private readonly head: HeadWriter | undefined;
  /** The newest row this store knows was written (by it or before it opened the log). */
  private writtenUpTo = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private timerIsImmediate = false;
  private closed = false;
  /** The last time stamped, as `Date.now()` and as text. */
  private stampMs = Number.NaN;
  private stamp = '';
  private readonly guard: Coalescer<AuditEvent> | undefined;
  private readonly guardTimer: NodeJS.Timeout | undefined;
  private thread: ThreadBatches | undefined;
  private threadStart: NodeJS.Timeout | undefined;
  private readonly held: HeldRequests | undefined;

  constructor(
    private readonly adb: AuditDb,
    private readonly options: AuditStoreOptions,
  ) {
    this.path = options.path;
    this.batchSize = Math.max(1, options.batchSize ?? 500);
    this.flushDelayMs = Math.max(0, options.flushDelayMs ?? 10);
    this.maxQueue = Math.max(this.batchSize, options.maxQueue ?? 50_000);
    this.retryDelayMs = Math.max(1, options.retryDelayMs ?? 1000);
    this.onError = options.onError ?? ((e) => console.error('audit:', e));
    this.listeners = new RowListeners(this.onError);
    this.writeBatch = adb.readonly ? undefined : prepareWriter(adb, () => this.wantRows());
    const holdMs = options.holdRequestsMs ?? 10;
    if (holdMs > 0 && !adb.readonly) {
      this.held = new HeldRequests(
        { snapshot: this.snapshotNow, queue: (s) => this.push(s) },
        holdMs,
      );
    }
    if (options.headFile && !adb.readonly) {
      this.head = new HeadWriter(options.headFile, this.onError, undefined, () =>
        newestHead(adb.db),
      );
      this.noteTruncation(options.headFile);
    }
    if (options.floodGuard && !adb.readonly) {
      const now = options.now;
      this.guard = auditFloodGuard(
        options.floodGuard,
        (e) => this.enqueue(e),
        now ? () => now().getTime() : undefined,
      );
      this.guardTimer = setInterval(() => this.guard?.tick(), 1000);
      this.guardTimer.unref();
    }
    const script = options.writerThread;
    if (script && !adb.readonly && options.path !== ':memory:') {
      const delay = options.writerThreadDelayMs ?? 0;
      if (delay <= 0) this.startThread(script);
      else {
        this.threadStart = setTimeout(() => this.startThread(script), delay);
        this.threadStart.unref();
      }
    }
  }

  /**
   * From here on batches are handed to the writer thread. Called between writes (this store's
   * own are synchronous), so every row written so far is in the log the thread opens.
   */
  private startThread(script: string): void {
    this.threadStart = undefined;
    if (this.closed) return;
    this.writtenUpTo = newestId(this.adb.db);
    this.thread = new ThreadBatches(
      script,
      { path: this.options.path, busyTimeoutMs: this.options.busyTimeoutMs },
      {
        adb: this.adb,
        queue: this.queue,
        batchSize: this.batchSize,
        writtenUpTo: () => this.writtenUpTo,
        wantRows: () => this.wantRows(),
        afterWrite: (written) => this.afterWrite(written),
        schedule: () => this.schedule(),
        retryLater: () => this.retryLater(),
        onError: (error) => this.onError(error),
      },
    );
  }

  append(input: AuditEventInput): void {
    if (this.closed) throw new Error('The audit store is closed; the event was not recorded.');
    if (!this.writeBatch) throw new Error('The audit store was opened read-only.');
    if (this.held?.offer(input)) return;
    // Whether the flood guard may hold an event does not depend on its time (audit-flood-guard.ts).
    if (this.guard?.mayHold(input as AuditEvent)) {
      // An event the flood guard may hold is redacted now, with the secrets of this moment.
      const stamped = { ...input, ts: this.tsOf(input) };
      const secrets = this.secretsOf(input);
      this.guard.offer(secrets.length > 0 ? redactSecrets(stamped, secrets) : stamped);
    } else this.push(this.snapshotNow(input));
  }

  /** The event as `append` queues it: its JSON and the secrets of this moment, fixed now. */
  private readonly snapshotNow = (input: AuditEventInput): Snapshot =>
    snapshotAt(input, this.tsOf(input), this.secretsOf(input));

  private tsOf(input: AuditEventInput): string {
    if (input.ts !== undefined) return normalizeTime(input.ts);
    if (this.options.now) return this.options.now().toISOString();
    // The text of a millisecond is written once: a call's events mostly share theirs.
    const ms = Date.now();
    if (ms !== this.stampMs) {
      this.stampMs = ms;
      this.stamp = new Date(ms).toISOString();
    }
    return this.stamp;
  }

  private secretsOf(input: AuditEventInput): readonly AuditSecret[] {
    return secretsNow(this.options.secretsFor?.(input.server));
  }

  /** Records in the log itself that its newest rows are gone, before anything else is written. */
  private noteTruncation(headFile: string): void {
    const check = checkHead(this.adb.db, readHead(headFile));
    if (check.kind !== 'truncated') return;
    this.enqueue({
      kind: 'audit.truncated',
      ts: (this.options.now?.() ?? new Date()).toISOString(),
      outcome: 'error',
      recordedId: check.recorded.id,
      recordedHash: check.recorded.hash,
      recordedTs: check.recorded.ts,
      lastId: check.lastId,
      missing: check.missing,
      reason: check.reason,
    });
  }

  /** Queues a snapshot of `event`, to be written without `secrets`. */
  private enqueue(event: AuditEvent, secrets: readonly AuditSecret[] = NO_SECRETS): void {
    this.push(snapshot(event, secrets));
  }

  private push(taken: Snapshot): void {
    this.queue.push(taken);
    if (this.queue.length >= this.maxQueue) this.writePending();
    else this.schedule();
  }

  flush(): Promise<void> {
    try {
      this.writeAll();
      return this.head?.flush() ?? Promise.resolve();
    } catch (e) {
      this.retryLater();
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.guardTimer);
    clearTimeout(this.threadStart);
    this.held?.releaseAll();
    this.guard?.drain();
    await this.flush();
    await this.head?.flush();
    this.closed = true;
    this.cancelTimer();
    if (this.queue.length > 0 || this.thread?.busy) {
      // Appended (or handed to the thread) while the head file was being written.
      this.writeAll();
      await this.head?.flush();
    }
    await this.thread?.close();
    this.adb.db.close();
  }

  subscribe(listener: (rows: AuditRow[]) => void, wanted?: () => boolean): () => void {
    return this.listeners.add(listener, wanted);
  }

  async query(q: AuditQuery): Promise<AuditPage> {
    const { queryPage } = await (pageReader ??= import('./audit-page'));
    this.writePending();
    return queryPage(this.adb, q);
  }

  async exportJsonl(filter: AuditFilter, filePath: string): Promise<{ rows: number }> {
    this.writePending();
    return exportJsonl(this.adb, filter, filePath);
  }

  verify(): AuditVerifyResult {
    this.writePending();
    const head = this.options.headFile ? readHead(this.options.headFile) : undefined;
    return verifyChain(this.adb.db, head ? { head } : {});
  }

  prune(retention: AuditRetention, now = this.options.now?.() ?? new Date()): PruneResult {
    const write = this.writeBatch;
    if (!write) throw new Error('The audit store was opened read-only.');
    this.writeAll();
    return pruneLog(
      this.adb,
      retention,
      now,
      (event) => write([pending(event)]),
      (written) => this.afterWrite(written),
    );
  }

  pendingCount(): number {
    const held = (this.guard?.heldCount() ?? 0) + (this.held?.size ?? 0);
    return this.queue.length + (this.thread?.inFlight ?? 0) + held;
  }

  /** Writes the queue in batches; on failure the unwritten events stay queued and it throws. */
  private writeAll(): void {
    this.held?.releaseAll();
    this.cancelTimer();
    const patienceMs = (this.options.busyTimeoutMs ?? 5000) + 10_000;
    if (this.thread && !this.thread.failed && this.thread.writeAll(patienceMs)) return;
    while (this.queue.length > 0 && this.writeBatch) {
      const batch = this.queue.slice(0, this.batchSize);
      const written = this.writeBatch(batch.map((e) => prepare(e.json, e.secrets)));
      this.queue.splice(0, batch.length);
      this.afterWrite(written);
    }
  }

  private afterWrite({ rows, head }: Written): void {
    if (head) {
      this.writtenUpTo = Math.max(this.writtenUpTo, head.id);
      this.head?.record(head);
    }
    if (rows) this.listeners.notify(rows);
  }

  /** Writes what it can now; a failure is reported and retried, the events stay queued. */
  private writePending(): void {
    try {
      this.writeAll();
    } catch (e) {
      this.onError(e);
      this.retryLater();
    }
  }

  private wantRows(): boolean {
    return this.listeners.wanted();
  }

  private schedule(): void {
    const now = this.queue.length >= this.batchSize;
    if (this.timer && (!now || this.timerIsImmediate)) return;
    this.cancelTimer();
    this.timerIsImmediate = now;
    this.timer = now ? setImmediate(this.run) : setTimeout(this.run, this.flushDelayMs);
  }

  /** A timed write: failures are reported and retried, since no caller is waiting on it. */
  private readonly run = (): void => {
    this.timer = undefined;
    const thread = this.thread && !this.thread.failed ? this.thread : undefined;
    if (!thread) {
      this.writePending();
      return;
    }
    // The thread's answer schedules what queued meanwhile.
    if (!thread.busy && this.queue.length > 0) thread.handOver();
  };

  private retryLater(): void {
    if (this.closed || this.timer) return;
    this.timerIsImmediate = false;
    this.timer = setTimeout(this.run, this.retryDelayMs);
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }
}
