/**
 * The audit store's use of its writer thread: it hands the queue over one batch at a time, waits
 * for the thread when a caller needs the log written now, and settles what a thread that went
 * away left behind (the batch it was writing is recorded if it committed, queued again if not).
 * Kept apart from the store, which decides when to write; this decides how, on the thread.
 */
import { committedBatch, rowsBetween } from './audit-committed';
import type { AuditDb } from './audit-db';
import type { Snapshot } from './audit-prepare';
import type { Written } from './audit-writer';
import { WriterThreadClient } from './writer-thread-client';

/** What the thread's batches need of the store that owns the queue. */
export interface ThreadBatchesHost {
  readonly adb: AuditDb;
  /** The store's queue: batches are taken from its front, and put back there when unwritten. */
  readonly queue: Snapshot[];
  readonly batchSize: number;
  /** The newest row the store knows was written (a dead thread's batch comes after it). */
  writtenUpTo(): number;
  wantRows(): boolean;
  afterWrite(written: Written): void;
  schedule(): void;
  retryLater(): void;
  onError(error: unknown): void;
}

export class ThreadBatches {
  private readonly client: WriterThreadClient;
  /** Set while a caller waits for the thread: a failed batch is then thrown, not retried. */
  private settling = false;
  private threadError: Error | undefined;
  /** How many events the thread is writing now. */
  inFlight = 0;

  constructor(
    script: string,
    options: { path: string; busyTimeoutMs: number | undefined },
    private readonly host: ThreadBatchesHost,
  ) {
    this.client = new WriterThreadClient(
      script,
      options.path,
      options.busyTimeoutMs,
      (outcome, batch) => this.outcome(outcome, batch),
      (error) => {
        host.onError(error);
        if (host.queue.length > 0) host.schedule();
      },
    );
  }

  /** Set once the thread is gone; the store then writes on its own connection. */
  get failed(): Error | undefined {
    return this.client.failed;
  }

  /** Whether a batch is being written. */
  get busy(): boolean {
    return this.client.busy;
  }

  /**
   * Waits for the batch the thread is writing, then has it write the rest of the queue, batch by
   * batch; false when the thread stopped meanwhile (the store then writes the rest itself).
   * Throws when a batch failed or the thread did not answer in time: the events stay queued.
   */
  writeAll(patienceMs: number): boolean {
    this.settling = true;
    try {
      for (;;) {
        this.threadError = undefined;
        if (!this.client.settle(patienceMs)) {
          throw new Error(
            'The audit writer thread did not answer in time; the events stay queued.',
          );
        }
        // Read through a call: the settle above may have set it, unseen by the type checker.
        const failed = this.takeError();
        if (failed) throw failed;
        if (this.client.failed) return false;
        if (this.host.queue.length === 0) return true;
        this.handOver();
      }
    } finally {
      this.settling = false;
    }
  }

  private takeError(): Error | undefined {
    const error = this.threadError;
    this.threadError = undefined;
    return error;
  }

  /** Hands the front of the queue to the thread. */
  handOver(): void {
    const batch = this.host.queue.splice(0, this.host.batchSize);
    this.inFlight = batch.length;
    this.client.write(batch, this.host.wantRows());
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** What became of a batch the thread wrote: recorded, or queued again in front. */
  private outcome(outcome: { written: Written } | string, batch: Snapshot[]): void {
    const host = this.host;
    this.inFlight = 0;
    if (typeof outcome !== 'string') {
      host.afterWrite(outcome.written);
      if (host.queue.length > 0) host.schedule();
      return;
    }
    if (this.client.failed) {
      // The thread is gone (reported once by the client): the store writes from now on, the
      // batch too unless the thread committed it before it went.
      const head = this.committedByThread(batch);
      if (head) host.afterWrite({ rows: this.committedRows(head.id, batch.length), head });
      else host.queue.unshift(...batch);
      if (!this.settling && host.queue.length > 0) host.schedule();
      return;
    }
    host.queue.unshift(...batch);
    const error = new Error(outcome);
    if (this.settling) {
      this.threadError = error;
      return;
    }
    host.onError(error);
    host.retryLater();
  }

  /**
   * The rows a dead thread committed (the last `count` through `lastId`), read back for the
   * listeners that want rows: they are in the log, so the live views show them too.
   */
  private committedRows(lastId: number, count: number): Written['rows'] {
    if (!this.host.wantRows()) return undefined;
    try {
      return rowsBetween(this.host.adb.db, lastId - count + 1, lastId);
    } catch (e) {
      this.host.onError(e);
      return undefined;
    }
  }

  /** The head a dead thread's last batch left, when it committed (see audit-committed.ts). */
  private committedByThread(batch: Snapshot[]): Written['head'] {
    try {
      return committedBatch(this.host.adb.db, batch, this.host.writtenUpTo());
    } catch (e) {
      // Unknown: written again, since a record twice is better than a record lost.
      this.host.onError(e);
      return undefined;
    }
  }
}
