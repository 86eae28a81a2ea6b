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

/** Starts applying `retention()` to `store` on a timer. */
export function scheduleRetention(
  store: AuditStore,
  retention: () => AuditRetention,
  options: { everyMs?: number; onError?: (e: unknown) => void } = {},
): RetentionSchedule {
  const onError = options.onError ?? ((e: unknown) => console.error('warden: audit retention:', e));
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    try {
      store.prune(retention());
    } catch (e) {
      onError(e);
    }
  };
  const first = setTimeout(run, 1000);
  const timer = setInterval(run, options.everyMs ?? 600_000);
  first.unref();
  timer.unref();
  return {
    runNow: () => void setImmediate(run),
    stop: () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
