/**
 * Live activity per server for the servers list: seeded from the newest audit rows on (re)connect,
 * then folded from live audit batches once per frame, with a single `set`.
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
  /** Queues live rows (oldest first); folded on the next frame. */
  activityBatch: (rows: AuditRow[]) => void;
}

const SEED_ROWS = 1000;

export const createActivitySlice =
  (api: WardenApi, schedule: FrameScheduler): StateCreator<Root, [], [], ActivitySlice> =>
  (set, get) => {
    let queued: AuditRow[] = [];
    let scheduled = false;
    const flush = () => {
      scheduled = false;
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
        schedule(flush);
      },
    };
  };
