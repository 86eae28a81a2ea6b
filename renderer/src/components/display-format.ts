/**
 * Strings the live lists show, formatted once and kept: a row re-renders every frame while events
 * stream in (its position changes), and building a locale formatter per call cost more than the
 * rest of the frame. Formatters are created once; an audit row's strings are kept with the row.
 */
import type { AuditRow } from '../../../app/audit/audit-row';
import { auditEventText } from '../../../app/audit/audit-text';
import { showUntrusted } from '../../../app/text/untrusted-text';

const clockFormat = new Intl.DateTimeFormat(undefined, {
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hour12: false,
});
const countFormat = new Intl.NumberFormat();

/** The local time of day of an ISO timestamp, e.g. `14:06:40` (the input when it is not one). */
export function clockTime(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts : clockFormat.format(d);
}

/** A count with the locale's digit grouping, e.g. `100,000`. */
export function countText(n: number): string {
  return countFormat.format(n);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local date and time to the millisecond, e.g. `2026-12-01 14:06:40.374`. */
export function auditTime(ts: string): string {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export interface AuditRowText {
  time: string;
  /** The summary without the kind, outcome and server the other columns already show. */
  detail: string;
}

const rowTexts = new WeakMap<AuditRow, AuditRowText>();

/** The audit list's strings for `row`, computed on its first showing and kept with it. */
export function auditRowText(row: AuditRow): AuditRowText {
  let text = rowTexts.get(row);
  if (!text) {
    const summary = auditEventText(row.event);
    const at = summary.indexOf(': ');
    // A server names its tools and its forms' fields: shown, never obeyed (bidi overrides).
    const detail = showUntrusted(at < 0 ? summary : summary.slice(at + 2));
    text = { time: auditTime(row.ts), detail };
    rowTexts.set(row, text);
  }
  return text;
}

/**
 * A path cut in the middle to at most `max` characters, keeping its start and as many of its last
 * parts as fit (the informative end), e.g. `/home/alex/…/servers/notes`. A last part longer than
 * the room left keeps its own end.
 */
export function middlePath(path: string, max = 30): string {
  if (path.length <= max) return path;
  const parts = path.split('/');
  // The head: the leading "/" (or drive) and the first part.
  const head = parts.slice(0, path.startsWith('/') ? 2 : 1).join('/');
  let tail = '';
  for (let i = parts.length - 1; i > 0; i--) {
    const next = tail === '' ? parts[i]! : `${parts[i]!}/${tail}`;
    if (head.length + 3 + next.length > max) break;
    tail = next;
  }
  return tail === '' ? `…${path.slice(-(max - 1))}` : `${head}/…/${tail}`;
}
