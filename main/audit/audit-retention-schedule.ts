/**
 * Runs retention for a live store: once soon after start, then every `everyMs` (10 minutes), and
 * whenever the settings change (`runNow`). Each run is one short pass of chunked transactions;
 * a failure is reported and the next run tries again.
 */
import type { AuditRetention } from '../../app/audit/audit-settings';
import type { AuditStore } from './audit-store';

export interface RetentionSchedule {
  /** Applies the current settings now (deferred to the next turn of the event loop). */
  runNow: () => void;
  stop: () => void;
}

/** Starts applying `retention()` to `store` on a timer; undefined skips that run. */
export function scheduleRetention(
  store: AuditStore,
  retention: () => AuditRetention | undefined | Promise<AuditRetention | undefined>,
  options: { everyMs?: number; onError?: (e: unknown) => void } = {},
): RetentionSchedule {
  const onError = options.onError ?? ((e: unknown) => console.error('warden: audit retention:', e));
  let stopped = false;
  const run = async (): Promise<void> => {
    try {
      const applied = await retention();
      if (!stopped && applied) store.prune(applied);
    } catch (e) {
      onError(e);
    }
  };
  const first = setTimeout(() => void run(), 1000);
  const timer = setInterval(() => void run(), options.everyMs ?? 600_000);
  first.unref();
  timer.unref();
  return {
    runNow: () => void setImmediate(() => void run()),
    stop: () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
