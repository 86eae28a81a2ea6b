/**
 * Each server's live activity as its row shows it: the last few tool calls and network decisions
 * (what, outcome, when) and running counts. Folded from audit rows, one batch at a time, with one
 * new object per server that changed and none for the others, so a row re-renders only when its
 * own server did something.
 */
import type { AuditRow } from '../../../../app/audit/audit-row';

export type ActivityOutcome = 'ok' | 'refused' | 'error' | 'pending';

export interface ActivityItem {
  /** The audit row id of the item's first event. */
  id: number;
  ts: string;
  kind: 'call' | 'network';
  /** Tool name, or host:port. */
  label: string;
  outcome: ActivityOutcome;
  /** Pairs a call's response with its request. */
  key?: string;
}

export interface ServerActivity {
  recent: ActivityItem[];
  calls: number;
  callErrors: number;
  network: number;
  networkRefused: number;
  /** The host of the last refused network decision, to offer as a grant. */
  lastRefusedHost?: string;
}

export const ACTIVITY_RECENT = 6;

/** A server with no activity yet (one shared object, so rows reading it do not re-render). */
export const NO_ACTIVITY: ServerActivity = {
  recent: [],
  calls: 0,
  callErrors: 0,
  network: 0,
  networkRefused: 0,
};

function callKey(row: AuditRow, requestId: string | number | null): string {
  return `${row.instance ?? ''}|${String(requestId)}`;
}

function foldRow(a: ServerActivity, row: AuditRow): ServerActivity {
  const e = row.event;
  if (e.kind === 'mcp.request' && e.method === 'tools/call') {
    const item: ActivityItem = {
      id: row.id,
      ts: row.ts,
      kind: 'call',
      label: e.tool ?? 'tool',
      outcome: row.outcome === 'refused' ? 'refused' : 'pending',
      key: callKey(row, e.requestId),
    };
    return {
      ...a,
      calls: a.calls + 1,
      callErrors: a.callErrors + (row.outcome === 'refused' ? 1 : 0),
      recent: [item, ...a.recent].slice(0, ACTIVITY_RECENT),
    };
  }
  // A call recorded in one row is its answer, with no request row before it.
  if ((e.kind === 'mcp.response' || e.kind === 'mcp.call') && e.method === 'tools/call') {
    const failed = row.outcome === 'error' || row.outcome === 'refused' || e.error !== undefined;
    const outcome: ActivityOutcome =
      row.outcome === 'refused' ? 'refused' : failed ? 'error' : 'ok';
    const key = callKey(row, e.requestId);
    const at = a.recent.findIndex((i) => i.key === key);
    if (at < 0) {
      const item: ActivityItem = {
        id: row.id,
        ts: row.ts,
        kind: 'call',
        label: e.tool ?? 'tool',
        outcome,
      };
      return {
        ...a,
        calls: a.calls + 1,
        callErrors: a.callErrors + (failed ? 1 : 0),
        recent: [item, ...a.recent].slice(0, ACTIVITY_RECENT),
      };
    }
    const recent = [...a.recent];
    const was = recent[at]!;
    recent[at] = { ...was, outcome: was.outcome === 'refused' ? 'refused' : outcome };
    return {
      ...a,
      callErrors: a.callErrors + (failed && was.outcome === 'pending' ? 1 : 0),
      recent,
    };
  }
  if (e.kind === 'network.decision') {
    const refused = e.decision === 'deny';
    const item: ActivityItem = {
      id: row.id,
      ts: row.ts,
      kind: 'network',
      label: `${e.host}:${e.port}`,
      outcome: refused ? 'refused' : 'ok',
    };
    return {
      ...a,
      network: a.network + 1,
      networkRefused: a.networkRefused + (refused ? 1 : 0),
      ...(refused ? { lastRefusedHost: e.host } : {}),
      recent: [item, ...a.recent].slice(0, ACTIVITY_RECENT),
    };
  }
  return a;
}

/** True for the rows the activity strip shows. */
export function isActivityRow(row: AuditRow): boolean {
  const e = row.event;
  return (
    ((e.kind === 'mcp.request' || e.kind === 'mcp.response' || e.kind === 'mcp.call') &&
      e.method === 'tools/call') ||
    e.kind === 'network.decision'
  );
}

/**
 * Folds `rows` (oldest first) into `activity`; returns the same object when nothing changed.
 * Rows at or below `seen` were folded already and are skipped.
 */
export function foldActivity(
  activity: Readonly<Record<string, ServerActivity>>,
  rows: readonly AuditRow[],
  seen: number,
): { activity: Record<string, ServerActivity>; seen: number } {
  let next: Record<string, ServerActivity> | undefined;
  let last = seen;
  for (const row of rows) {
    if (row.id <= seen) continue;
    last = Math.max(last, row.id);
    if (!row.server || !isActivityRow(row)) continue;
    next ??= { ...activity };
    next[row.server] = foldRow(next[row.server] ?? NO_ACTIVITY, row);
  }
  return { activity: next ?? activity, seen: last };
}
