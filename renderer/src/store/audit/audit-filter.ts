/**
 * The audit screen's filter, how it becomes an `audit.query`, and how a live row is checked
 * against it in the page, the same way the core's full-text search reads it: every word required,
 * whole words (a word ending in `*` is a prefix), case-insensitive, over the row's summary.
 */
import type { AuditKind, AuditOutcome } from '../../../../app/audit/audit-event';
import type { AuditQuery, AuditRow } from '../../../../app/audit/audit-row';
import { kindsSelected } from '../../../../app/audit/audit-kinds';
import { auditEventText } from '../../../../app/audit/audit-text';

export interface AuditFilter {
  server?: string;
  instance?: string;
  kinds?: AuditKind[];
  outcome?: AuditOutcome;
  /** ISO 8601, inclusive. */
  since?: string;
  until?: string;
  text?: string;
}

/** The core query for `filter` (without cursor). */
export function queryOf(filter: AuditFilter, limit: number): AuditQuery {
  const q: AuditQuery = { limit };
  if (filter.server) q.server = filter.server;
  if (filter.instance) q.instance = filter.instance;
  if (filter.kinds && filter.kinds.length > 0) {
    q.kind = filter.kinds.length === 1 ? filter.kinds[0] : filter.kinds;
  }
  if (filter.outcome) q.outcome = filter.outcome;
  if (filter.since) q.since = filter.since;
  if (filter.until) q.until = filter.until;
  const text = filter.text?.trim();
  if (text) q.text = text;
  return q;
}

const TOKEN = /[\p{L}\p{N}_]+/gu;

function tokens(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** True when every word of `search` occurs in `text` as the core's full-text search reads it. */
export function textMatches(text: string, search: string): boolean {
  const hay = tokens(text);
  for (const word of search.split(/\s+/).filter(Boolean)) {
    const prefix = word.length > 1 && word.endsWith('*');
    const needle = tokens(prefix ? word.slice(0, -1) : word);
    if (needle.length === 0) continue;
    const found = hay.some((_, start) =>
      needle.every((n, k) => {
        const t = hay[start + k];
        if (t === undefined) return false;
        return prefix && k === needle.length - 1 ? t.startsWith(n) : t === n;
      }),
    );
    if (!found) return false;
  }
  return true;
}

/** True when `row` passes `filter` (used for rows that arrive live). */
export function rowMatches(row: AuditRow, filter: AuditFilter): boolean {
  if (filter.server && row.server !== filter.server) return false;
  if (filter.instance && row.instance !== filter.instance) return false;
  if (filter.kinds && filter.kinds.length > 0 && !kindsSelected(filter.kinds).includes(row.kind))
    return false;
  if (filter.outcome && row.outcome !== filter.outcome) return false;
  if (filter.since && row.ts < filter.since) return false;
  if (filter.until && row.ts > filter.until) return false;
  const text = filter.text?.trim();
  if (text && !textMatches(auditEventText(row.event), text)) return false;
  return true;
}
