/**
 * The audit log as the page holds it while the audit screen is open: rows matching the current
 * filter, newest first, bounded, live. Opening the screen loads the newest page by query; closing
 * it lets the rows go, and live rows are then not kept at all (the servers' activity strips fold
 * their own small window). Batches are queued and folded at most once per frame with a single
 * `set`, so a thousand events a second cost one render per frame, not one per event.
 */
import type { StateCreator } from 'zustand';
import { hasPair, pairKind } from '../../../../app/audit/audit-kinds';
import type { AuditRow, AuditVerifyResult } from '../../../../app/audit/audit-row';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { Root } from '../root-store';
import { toContractError } from '../servers/servers-slice';
import { AUDIT_BUFFER_MAX, foldNewer, foldOlder } from './audit-buffer';
import { type AuditFilter, queryOf, rowMatches } from './audit-filter';

export const AUDIT_PAGE = 1000;

export type VerifyState =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'done'; result: AuditVerifyResult; at: string }
  | { kind: 'failed'; error: ContractError };

export interface AuditSlice {
  /** True while the audit screen is shown: only then are rows loaded and live rows kept. */
  auditOpen: boolean;
  auditRows: AuditRow[];
  auditFilter: AuditFilter;
  /** Cursor for the next older page; undefined when the log has no more. */
  auditCursor: number | undefined;
  auditLoading: boolean;
  auditError: ContractError | undefined;
  /** Total rows ever put in front (lets the list keep its place when rows arrive on top). */
  auditHeadAdded: number;
  auditSelected: number | undefined;
  /** The request or response paired with the selected MCP row, when it is not loaded. */
  auditPairFetched: AuditRow | undefined;
  auditVerify: VerifyState;
  /** Shows the audit screen's rows: loads the newest page of the current filter, then live. */
  openAudit: () => Promise<void>;
  /** The audit screen is gone: drops its rows and stops keeping live ones. */
  closeAudit: () => void;
  /** Sets the filter; while the screen is open, reloads the rows for it. */
  setAuditFilter: (filter: AuditFilter) => Promise<void>;
  loadOlderAudit: () => Promise<void>;
  /** Queues a live batch (oldest first); folded on the next frame. */
  auditBatch: (rows: AuditRow[]) => void;
  selectAuditRow: (id: number | undefined) => void;
  verifyAudit: () => Promise<void>;
  /** Every row matching the current filter, oldest first, as JSON Lines. */
  exportAudit: () => Promise<{ text: string; rows: number }>;
}

export type FrameScheduler = (run: () => void) => void;

/** Runs `run` on the next animation frame (a timer where there are no frames). */
export const nextFrame: FrameScheduler = (run) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => run());
  else setTimeout(run, 16);
};

export const createAuditSlice =
  (api: WardenApi, schedule: FrameScheduler = nextFrame): StateCreator<Root, [], [], AuditSlice> =>
  (set, get) => {
    let queued: AuditRow[] = [];
    let scheduled = false;
    let generation = 0;

    const flush = () => {
      scheduled = false;
      const batch = queued;
      queued = [];
      const { auditOpen, auditFilter, auditRows, auditHeadAdded } = get();
      if (!auditOpen) return;
      const wanted = batch.filter((r) => rowMatches(r, auditFilter));
      if (wanted.length === 0) return;
      const folded = foldNewer(auditRows, wanted, AUDIT_BUFFER_MAX);
      if (folded.added === 0) return;
      set({
        auditRows: folded.rows,
        auditHeadAdded: auditHeadAdded + folded.added,
        // Rows dropped from the tail can be fetched again as an older page.
        ...(folded.dropped > 0 ? { auditCursor: folded.rows.at(-1)?.id } : {}),
      });
    };

    // The other half of an MCP exchange, when the current filter left it out of the page.
    const fetchPair = async (row: AuditRow) => {
      const e = row.event;
      const other = pairKind(e.kind);
      if (!other || !('requestId' in e) || !row.instance || !hasPair(e)) return;
      const want = other.kind;
      if (
        get().auditRows.some(
          (r) =>
            r.kind === want &&
            r.instance === row.instance &&
            'requestId' in r.event &&
            r.event.requestId === e.requestId &&
            hasPair(r.event),
        )
      )
        return;
      try {
        const page = await api['audit.query']({
          instance: row.instance,
          kind: want,
          limit: AUDIT_PAGE,
          ...(other.before ? { cursor: row.id } : {}),
        });
        const pair = page.rows.find(
          (r) => 'requestId' in r.event && r.event.requestId === e.requestId && hasPair(r.event),
        );
        if (pair && get().auditSelected === row.id) set({ auditPairFetched: pair });
      } catch {
        /* the detail shows what it has */
      }
    };

    const load = async (filter: AuditFilter) => {
      const mine = ++generation;
      set({ auditFilter: filter, auditLoading: true, auditError: undefined, auditRows: [] });
      try {
        const page = await api['audit.query'](queryOf(filter, AUDIT_PAGE));
        if (mine !== generation) return;
        // Live rows that arrived while the page was loading stay in front of it.
        const live = get().auditRows.filter((r) => r.id > (page.rows[0]?.id ?? 0));
        set({
          auditRows: live.concat(page.rows),
          auditCursor: page.nextCursor,
          auditLoading: false,
        });
      } catch (error) {
        if (mine === generation) set({ auditError: toContractError(error), auditLoading: false });
      }
    };

    return {
      auditOpen: false,
      auditRows: [],
      auditFilter: {},
      auditCursor: undefined,
      auditLoading: false,
      auditError: undefined,
      auditHeadAdded: 0,
      auditSelected: undefined,
      auditPairFetched: undefined,
      auditVerify: { kind: 'idle' },
      openAudit: async () => {
        set({ auditOpen: true });
        await load(get().auditFilter);
      },
      closeAudit: () => {
        generation++;
        queued = [];
        set({
          auditOpen: false,
          auditRows: [],
          auditCursor: undefined,
          auditLoading: false,
          auditHeadAdded: 0,
          auditSelected: undefined,
          auditPairFetched: undefined,
        });
      },
      setAuditFilter: async (filter) => {
        if (get().auditOpen) await load(filter);
        else set({ auditFilter: filter });
      },
      loadOlderAudit: async () => {
        const { auditCursor, auditLoading, auditFilter, auditRows } = get();
        if (auditCursor === undefined || auditLoading) return;
        if (auditRows.length >= AUDIT_BUFFER_MAX) return;
        const mine = generation;
        set({ auditLoading: true });
        try {
          const page = await api['audit.query']({
            ...queryOf(auditFilter, AUDIT_PAGE),
            cursor: auditCursor,
          });
          if (mine !== generation) return;
          set((s) => ({
            auditRows: foldOlder(s.auditRows, page.rows, AUDIT_BUFFER_MAX),
            auditCursor: page.nextCursor,
            auditLoading: false,
          }));
        } catch (error) {
          if (mine === generation) set({ auditError: toContractError(error), auditLoading: false });
        }
      },
      auditBatch: (rows) => {
        if (!get().auditOpen) return;
        for (const r of rows) queued.push(r);
        if (scheduled) return;
        scheduled = true;
        schedule(flush);
      },
      selectAuditRow: (auditSelected) => {
        set({ auditSelected, auditPairFetched: undefined });
        const row = get().auditRows.find((r) => r.id === auditSelected);
        if (row) void fetchPair(row);
      },
      verifyAudit: async () => {
        set({ auditVerify: { kind: 'running' } });
        try {
          const result = await api['audit.verify']({});
          set({ auditVerify: { kind: 'done', result, at: new Date().toISOString() } });
        } catch (error) {
          set({ auditVerify: { kind: 'failed', error: toContractError(error) } });
        }
      },
      exportAudit: async () => {
        const filter = get().auditFilter;
        const pages: AuditRow[][] = [];
        let cursor: number | undefined;
        do {
          const page = await api['audit.query']({ ...queryOf(filter, AUDIT_PAGE), cursor });
          pages.push(page.rows);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        const rows = pages.flat().reverse();
        return { text: rows.map((r) => JSON.stringify(r) + '\n').join(''), rows: rows.length };
      },
    };
  };
