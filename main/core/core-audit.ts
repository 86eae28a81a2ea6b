/**
 * The core's audit log: opened while the core is built, or, for a core that relays one session,
 * after that session's server has been spawned (deferred-audit.ts). Retention runs once the log
 * is open.
 */
import type { AuditRetention } from '../../app/audit/audit-settings';
import type { AuditSecret } from '../../app/audit/redact';
import { CORE_AUDIT_FLOOD_GUARD } from '../audit/audit-flood-guard';
import { type RetentionSchedule, scheduleRetention } from '../audit/audit-retention-schedule';
import type { AuditStore } from '../audit/audit-store';
import { join } from 'node:path';
import { DeferredAuditStore } from './deferred-audit';
import { RemediedError } from './remedied-error';

export interface CoreAudit {
  readonly store: AuditStore;
  /** Opens a deferred log (writing what was queued); resolves at once for one already open. */
  open(): Promise<void>;
  /** Applies retention now (once the log is open). */
  runRetention(): void;
  stop(): void;
}

/**
 * How long a deferred log (a core that relays one session) writes on the core's own thread before
 * its writer thread starts: the thread's start-up is kept out of the server's, which runs beside
 * it on the same few CPUs, and the few rows of a launch cost the relaying thread little.
 */
export const DEFERRED_WRITER_THREAD_DELAY_MS = 2000;

/** Opens the audit log of `wardenHome` now, or (`defer`) when `open` is called. */
export async function coreAudit(options: {
  wardenHome: string;
  secretsFor: () => readonly AuditSecret[];
  retention: () => AuditRetention | undefined | Promise<AuditRetention | undefined>;
  defer: boolean;
  /** The built writer thread's file; without it batches are written on this thread. */
  writerThread?: string;
}): Promise<CoreAudit> {
  const path = join(options.wardenHome, 'audit.db');
  // SQLite loads with the store: a deferred log loads it after the spawn too.
  const opener = async () =>
    (await import('../audit/audit-store')).openAuditStore({
      path,
      secretsFor: options.secretsFor,
      headFile: join(options.wardenHome, 'audit-head.json'),
      ...CORE_AUDIT_FLOOD_GUARD,
      ...(options.writerThread ? { writerThread: options.writerThread } : {}),
      ...(options.defer ? { writerThreadDelayMs: DEFERRED_WRITER_THREAD_DELAY_MS } : {}),
    });
  let retention: RetentionSchedule | undefined;
  const retain = (store: AuditStore) => (retention ??= scheduleRetention(store, options.retention));
  if (options.defer) {
    const store = new DeferredAuditStore(path, opener);
    return {
      store,
      open: async () => {
        await store.open();
        retain(store);
      },
      runRetention: () => retention?.runNow(),
      stop: () => retention?.stop(),
    };
  }
  const opened = await opener();
  if (!opened.ok) throw new RemediedError(opened.error.message, opened.error.remedy);
  const schedule = retain(opened.value);
  return {
    store: opened.value,
    open: () => Promise.resolve(),
    runRetention: schedule.runNow,
    stop: schedule.stop,
  };
}
