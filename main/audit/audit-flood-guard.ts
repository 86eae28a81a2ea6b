/**
 * The audit log's guard against volume a hostile server controls: network decisions and sandbox
 * refusals are coalesced per instance, kind, decision and destination (`host:port`; a port scan
 * of one host is bounded by the budget instead), a server's requests to the client and the
 * client's answers to them per method, and each instance has a rate budget past which its events
 * are counted into one `audit.summary` row per budget window. Every other kind (tool calls,
 * lifecycle, grants, policy changes) is written one by one, as before.
 */
import type { AuditEvent, AuditEventOf } from '../../app/audit/audit-event';
import { Coalescer, type Coalesced } from './coalescer';

export interface FloodGuardOptions {
  /** Repeats within this long after the first are written as one row. Default 5,000 ms. */
  windowMs?: number;
  /** Rows one instance may add per `budgetSeconds` before the rest is summarised. Default 60. */
  budgetRows?: number;
  /** Default 10 s. */
  budgetSeconds?: number;
  /** Destinations named in a summary; the rest is counted together. Default 16. */
  summaryKeys?: number;
}

/** The guard the core runs with (and the flood test checks). */
export const CORE_AUDIT_FLOOD_GUARD: { floodGuard: FloodGuardOptions } = {
  floodGuard: { windowMs: 5000, budgetRows: 60, budgetSeconds: 10, summaryKeys: 16 },
};

/** What a coalesced kind repeats on, or `undefined` for kinds that are written one by one. */
export function repeatSubject(e: AuditEvent): string | undefined {
  switch (e.kind) {
    case 'network.decision':
      return `${e.decision} ${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
    case 'sandbox.violation':
      return `${e.operation} ${e.target ?? ''}`.trim();
    case 'mcp.server-request':
      // Nothing bounds how many a server sends: repeats of a method are counted into one row.
      return e.method;
    case 'mcp.client-answer':
      // Each answers one of those requests: as many as the server sent. What kind of answer it
      // was is kept apart, so that an accepted form is not counted into the declined ones.
      return `${e.outcome} ${e.method} ${e.resultSummary ?? ''}`.trim();
    default:
      return undefined;
  }
}

function merge(a: AuditEvent, b: AuditEvent): AuditEvent {
  if (a.kind !== 'network.decision' || b.kind !== 'network.decision') return a;
  return {
    ...a,
    bytesUp: a.bytesUp + b.bytesUp,
    bytesDown: a.bytesDown + b.bytesDown,
    durationMs: Math.max(a.durationMs, b.durationMs),
  };
}

/** The rows to write for one output of the coalescer. */
function toEvent(out: Coalesced<AuditEvent>, o: Required<FloodGuardOptions>): AuditEvent {
  switch (out.kind) {
    case 'single':
      return out.item;
    case 'repeat':
      return {
        ...out.merged,
        ts: out.last.ts,
        repeat: { count: out.count, firstTs: out.first.ts, lastTs: out.last.ts },
      };
    case 'summary': {
      const summary: AuditEventOf<'audit.summary'> = {
        kind: 'audit.summary',
        ts: out.last.ts,
        outcome: 'info',
        reason: 'rate-budget',
        count: out.count,
        firstTs: out.first.ts,
        lastTs: out.last.ts,
        groups: out.groups.map((g) => ({
          kind: g.sample.kind,
          outcome: g.sample.outcome,
          subject: repeatSubject(g.sample) ?? '',
          count: g.count,
        })),
        otherCount: out.otherCount,
        budget: { rows: o.budgetRows, seconds: o.budgetSeconds },
      };
      if (out.first.server) summary.server = out.first.server;
      if (out.first.instance) summary.instance = out.first.instance;
      return summary;
    }
  }
}

/** A coalescer over audit events that hands each row to write to `write`. */
export function auditFloodGuard(
  options: FloodGuardOptions,
  write: (event: AuditEvent) => void,
  now?: () => number,
): Coalescer<AuditEvent> {
  const o: Required<FloodGuardOptions> = {
    windowMs: options.windowMs ?? 5000,
    budgetRows: options.budgetRows ?? 60,
    budgetSeconds: options.budgetSeconds ?? 10,
    summaryKeys: options.summaryKeys ?? 16,
  };
  return new Coalescer<AuditEvent>({
    keyOf: (e) => {
      const subject = repeatSubject(e);
      if (subject === undefined || e.repeat) return undefined;
      return `${e.server ?? ''}\0${e.instance ?? ''}\0${e.kind}\0${subject}`;
    },
    holderOf: (e) => `${e.server ?? ''}\0${e.instance ?? ''}`,
    merge,
    emit: (out) => write(toEvent(out, o)),
    windowMs: o.windowMs,
    budget: o.budgetRows,
    budgetMs: o.budgetSeconds * 1000,
    summaryKeys: o.summaryKeys,
    ...(now ? { now } : {}),
  });
}
