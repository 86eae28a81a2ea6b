/** Reads of the audit slice. */
import { hasPair, pairKind } from '../../../../app/audit/audit-kinds';
import type { AuditRow } from '../../../../app/audit/audit-row';
import type { Root } from '../root-store';

/** The index of the loaded row with `id`, or -1 (rows are newest first: binary search). */
export function indexOfId(rows: readonly AuditRow[], id: number | undefined): number {
  if (id === undefined) return -1;
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid]!;
    if (r.id === id) return mid;
    if (r.id > id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function rowById(rows: readonly AuditRow[], id: number | undefined): AuditRow | undefined {
  return rows[indexOfId(rows, id)];
}

/** The answer (or request) that pairs with an MCP row, by instance and JSON-RPC id. */
function pairOf(rows: readonly AuditRow[], row: AuditRow): AuditRow | undefined {
  const e = row.event;
  const want = pairKind(e.kind);
  if (!want || !('requestId' in e) || !hasPair(e)) return undefined;
  const at = indexOfId(rows, row.id);
  const step = want.before ? 1 : -1;
  for (let i = at + step, n = 0; i >= 0 && i < rows.length && n < 5000; i += step, n++) {
    const r = rows[i]!;
    if (
      r.kind === want.kind &&
      r.instance === row.instance &&
      'requestId' in r.event &&
      hasPair(r.event)
    ) {
      if (r.event.requestId === e.requestId) return r;
    }
  }
  return undefined;
}

export const auditSelectors = {
  rows: (s: Root) => s.auditRows,
  count: (s: Root) => s.auditRows.length,
  filter: (s: Root) => s.auditFilter,
  loading: (s: Root) => s.auditLoading,
  error: (s: Root) => s.auditError,
  hasMore: (s: Root) => s.auditCursor !== undefined,
  headAdded: (s: Root) => s.auditHeadAdded,
  selectedId: (s: Root) => s.auditSelected,
  selected: (s: Root) => rowById(s.auditRows, s.auditSelected),
  pairOfSelected: (s: Root) => {
    const row = rowById(s.auditRows, s.auditSelected);
    return row ? (pairOf(s.auditRows, row) ?? s.auditPairFetched) : undefined;
  },
  verify: (s: Root) => s.auditVerify,
  /** What the list reads, in one subscription (a new object: read with useShallow). */
  list: (s: Root) => ({
    rows: s.auditRows,
    headAdded: s.auditHeadAdded,
    selected: s.auditSelected,
    hasMore: s.auditCursor !== undefined,
    loadOlder: s.loadOlderAudit,
    select: s.selectAuditRow,
  }),
};
