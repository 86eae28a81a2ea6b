/**
 * Live activity per server for the servers list: seeded from the newest audit rows on (re)connect,
 * then folded from live audit batches with a single `set`, on a frame, at most every
 * `ACTIVITY_EVERY_MS`. A strip read by a person need not change more often, and each change
 * repaints every visible row that had activity: under a steady stream, a few folds a second
 * keep the list's frames within budget while a call still shows well within a second.
 */
import type { StateCreator } from 'zustand';
import type { AuditRow } from '../../../../app/audit/audit-row';
import type { WardenApi } from '../../../../app/contract/api';
import type { Root } from '../root-store';
import { type ServerActivity, foldActivity } from './activity-fold';
import type { FrameScheduler } from '../audit/audit-slice';

export interface ActivitySlice {
  activity: Record<string, ServerActivity>;
  /** The newest audit row id folded into `activity`. */
  activitySeen: number;
  /** Reads the newest calls and network decisions of every server. */
  loadActivity: () => Promise<void>;
  /** Queues live rows (oldest first); folded on a frame, at most every `ACTIVITY_EVERY_MS`. */
  activityBatch: (rows: AuditRow[]) => void;
}

const SEED_ROWS = 1000;

/** The shortest time between two folds of live rows into the strips, ms. */
export const ACTIVITY_EVERY_MS = 250;

/** The time source that paces the folds (a manual one in tests). */
export interface PaceClock {
  now: () => number;
  /** Runs `run` once, `ms` from now. */
  after: (ms: number, run: () => void) => void;
}

/** The page's monotonic clock and timers. */
export const realClock: PaceClock = {
  now: () => performance.now(),
  after: (ms, run) => void setTimeout(run, ms),
};

export const createActivitySlice =
  (
    api: WardenApi,
    schedule: FrameScheduler,
    clock: PaceClock = realClock,
  ): StateCreator<Root, [], [], ActivitySlice> =>
  (set, get) => {
    let queued: AuditRow[] = [];
    let scheduled = false;
    let lastFold = -Infinity;
    const flush = () => {
      scheduled = false;
      lastFold = clock.now();
      const batch = queued;
      queued = [];
      const { activity, activitySeen } = get();
      const folded = foldActivity(activity, batch, activitySeen);
      if (folded.activity !== activity || folded.seen !== activitySeen)
        set({ activity: folded.activity, activitySeen: folded.seen });
    };
    return {
      activity: {},
      activitySeen: 0,
      loadActivity: async () => {
        try {
          const page = await api['audit.query']({
            kind: ['mcp.request', 'mcp.response', 'network.decision'],
            limit: SEED_ROWS,
          });
          const oldestFirst = [...page.rows].reverse();
          // Rows newer than the page that arrived live are folded again on top of it.
          const folded = foldActivity({}, oldestFirst, 0);
          set({ activity: folded.activity, activitySeen: folded.seen });
        } catch {
          /* the strip fills from live events */
        }
      },
      activityBatch: (rows) => {
        for (const r of rows) queued.push(r);
        if (scheduled) return;
        scheduled = true;
        // After a quiet spell the rows show on the next frame; under a stream, paced.
        const wait = lastFold + ACTIVITY_EVERY_MS - clock.now();
        if (wait <= 0) schedule(flush);
        else clock.after(wait, () => schedule(flush));
      },
    };
  };
