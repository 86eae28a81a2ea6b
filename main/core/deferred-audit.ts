/**
 * An audit store whose database opens later: a core that relays one session (`warden connect`)
 * starts its server first and opens the log right after the spawn, so that neither loading
 * SQLite nor opening the database delays the first answer.
 *
 * Until it is open, `append` stamps each event with its time and keeps a copy (later changes to
 * the caller's object cannot alter it), in order; `open` hands them to the real store before any
 * later event, so the log's order and hash chain are those of an undelayed store. A process
 * killed before `open` finishes loses what was queued, as the real store loses what waits for
 * its next batch; every orderly end (`flush`, `close`) opens the store and writes it all.
 */
import type { AuditEventInput } from '../../app/audit/audit-event';
import type { AuditPage, AuditQuery, AuditRow, AuditVerifyResult } from '../../app/audit/audit-row';
import type { AuditRetention } from '../../app/audit/audit-settings';
import type { Result } from '../../app/result';
import type { AuditFilter, AuditStore, AuditStoreError, PruneResult } from '../audit/audit-store';
import { RemediedError } from './remedied-error';

export type AuditOpener = () => Promise<Result<AuditStore, AuditStoreError>>;

/** Thrown by a read before the database is open, and by `open` when it cannot be opened. */
export class AuditNotOpenError extends RemediedError {
  readonly kind = 'audit-not-open';
}

export class DeferredAuditStore implements AuditStore {
  private store: AuditStore | undefined;
  private opening: Promise<void> | undefined;
  private readonly queued: AuditEventInput[] = [];
  /** Listeners subscribed before the open, with their unsubscribe from the real store after it. */
  private readonly listeners = new Map<
    (rows: AuditRow[]) => void,
    { wanted: (() => boolean) | undefined; unsubscribe: (() => void) | undefined }
  >();
  private closed = false;

  constructor(
    readonly path: string,
    private readonly opener: AuditOpener,
    private readonly now: () => Date = () => new Date(),
  ) {}

  append(event: AuditEventInput): void {
    if (this.store) return this.store.append(event);
    if (this.closed) throw new Error('The audit store is closed; the event was not recorded.');
    this.queued.push(structuredClone({ ...event, ts: event.ts ?? this.now().toISOString() }));
  }

  /** Opens the database and writes what was queued, in order; rejects when it cannot be opened. */
  open(): Promise<void> {
    this.opening ??= this.opener().then((opened) => {
      if (!opened.ok) {
        this.opening = undefined;
        throw new AuditNotOpenError(opened.error.message, opened.error.remedy);
      }
      const store = opened.value;
      for (const event of this.queued.splice(0)) store.append(event);
      for (const [listener, entry] of this.listeners)
        entry.unsubscribe = store.subscribe(listener, entry.wanted);
      this.store = store;
    });
    return this.opening;
  }

  /** Whether the database is open (events go straight to it). */
  isOpen(): boolean {
    return this.store !== undefined;
  }

  async flush(): Promise<void> {
    await this.open();
    await this.store!.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.open();
    this.closed = true;
    await this.store!.close();
  }

  subscribe(listener: (rows: AuditRow[]) => void, wanted?: () => boolean): () => void {
    if (this.store) return this.store.subscribe(listener, wanted);
    this.listeners.set(listener, { wanted, unsubscribe: undefined });
    return () => {
      this.listeners.get(listener)?.unsubscribe?.();
      this.listeners.delete(listener);
    };
  }

  async query(q: AuditQuery): Promise<AuditPage> {
    return this.opened().query(q);
  }

  async exportJsonl(filter: AuditFilter, filePath: string): Promise<{ rows: number }> {
    await this.open();
    return this.store!.exportJsonl(filter, filePath);
  }

  verify(): AuditVerifyResult {
    return this.opened().verify();
  }

  prune(retention: AuditRetention, now?: Date): PruneResult {
    return this.opened().prune(retention, now);
  }

  pendingCount(): number {
    return this.queued.length + (this.store?.pendingCount() ?? 0);
  }

  private opened(): AuditStore {
    if (this.store) return this.store;
    throw new AuditNotOpenError(
      'the audit log is still being opened',
      'ask again in a moment: it opens once the session has started',
    );
  }
}
