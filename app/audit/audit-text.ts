/**
 * One-line human summaries of audit events. The store indexes this text for search and the CLI
 * and UI show it, so it names what a person would search for: server, tool, host, decision.
 */
import { describeHits } from '../secrets/credential-scan';
import type { AuditEvent, AuditEventOf } from './audit-event';

/** Summarizes an (already redacted) event in one line, without its timestamp. */
export function auditEventText(event: AuditEvent): string {
  const who = [event.server, event.instance].filter(Boolean).join('/');
  const head = `${event.kind} ${event.outcome}${who ? ` ${who}` : ''}`;
  return `${head}: ${detail(event)}${event.repeat ? repeated(event.repeat) : ''}`;
}

/** ` ×57 more from <first> to <last>`: the count a coalesced row stands for. */
function repeated(r: { count: number; firstTs: string; lastTs: string }): string {
  return ` ×${r.count} more from ${r.firstTs} to ${r.lastTs}`;
}

/** `kept read-only: a, b (+3 more)`: the workspace files a launch kept, or another such list. */
function pathsText(label: string, paths: readonly string[], total = paths.length): string {
  const more = total - paths.length;
  return `${label}: ${paths.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

function detail(e: AuditEvent): string {
  switch (e.kind) {
    case 'instance.lifecycle':
      return join(e.previous ? `${e.previous} -> ${e.state}` : e.state, e.reason, exit(e));
    case 'sandbox.launch':
      return join(
        `backend ${e.backend} revision ${e.revision} isolation ${e.policy.isolation}`,
        `network ${e.policy.network.mode}`,
        e.command?.join(' '),
        e.workspaceKept && pathsText('kept read-only', e.workspaceKept, e.workspaceKeptCount),
        e.closedFolders && pathsText('no new entries in', e.closedFolders, e.closedFoldersCount),
      );
    case 'network.decision':
      return join(
        `${e.decision} ${hostPort(e.host, e.port)} by ${e.by}`,
        e.rule && `rule ${e.rule}`,
        e.resolvedAddress && `address ${e.resolvedAddress}`,
        e.reason,
        `up ${e.bytesUp} down ${e.bytesDown} ${Math.round(e.durationMs)} ms`,
      );
    case 'grant.requested':
      return `ask ${hostPort(e.host, e.port)} grant ${e.grantId}`;
    case 'grant.decided':
      return `${e.decision} ${hostPort(e.host, e.port)} by ${e.by} grant ${e.grantId}`;
    case 'mcp.request':
      return join(
        e.method,
        e.tool && `tool ${e.tool}`,
        `${e.sizeBytes} bytes`,
        e.client && `client ${e.client}`,
      );
    case 'mcp.response':
      return join(answered(e), `${Math.round(e.durationMs)} ms ${e.sizeBytes} bytes`);
    case 'mcp.call':
      return join(
        answered(e),
        `${Math.round(e.durationMs)} ms`,
        `request ${e.requestBytes} bytes, answer ${e.sizeBytes} bytes`,
        e.client && `client ${e.client}`,
      );
    case 'tool.drift':
      return join(`tool ${e.tool} ${e.change}`, e.fields.join(' '), e.action);
    case 'policy.changed':
      // Where it was made first: the list shows the start of a row's text.
      return join(
        e.via === 'file' && 'edited in config.json',
        `revision ${e.revisionBefore} -> ${e.revisionAfter}`,
        e.changed.join(' '),
      );
    case 'limit.hit':
      return join(`limit ${e.limit}`, e.value !== undefined && String(e.value), e.detail);
    case 'approval.requested':
      return join(`ask tool ${e.tool} approval ${e.approvalId}`, e.reason && `reason ${e.reason}`);
    case 'approval.decided':
      return join(
        `${e.decision} tool ${e.tool} ${e.by === 'ended' ? 'as its instance ended' : `by ${e.by}`} approval ${e.approvalId}`,
        e.remember && `remembered ${e.remember}`,
        e.pattern && `pattern ${e.pattern}`,
      );
    case 'sandbox.violation':
      return join(
        `${e.backend} refused ${e.operation}`,
        e.target,
        e.process && `by ${e.process}`,
        e.detail,
      );
    case 'audit.summary':
      return join(
        `${e.count} events over the rate budget of ${e.budget.rows} rows per ${e.budget.seconds} s, counted here`,
        ...e.groups.map((g) => `${g.kind} ${g.subject} ×${g.count}`),
        e.otherCount > 0 && `others ×${e.otherCount}`,
        `from ${e.firstTs} to ${e.lastTs}`,
      );
    case 'audit.anchor':
      return `rows 1-${e.throughId} removed by retention (${e.prunedRows} rows, the last at ${e.throughTs}); the chain goes on from here`;
    case 'audit.truncated':
      return e.reason;
    case 'audit.pruned':
      return join(
        `retention removed ${e.prunedRows} rows through row ${e.throughId} (${e.throughTs})`,
        `by ${e.reason}`,
        e.maxAgeDays !== undefined && `max age ${e.maxAgeDays} days`,
        e.maxSizeMb !== undefined && `max size ${e.maxSizeMb} MB`,
      );
    case 'core.error':
      return `${e.source}: ${e.message}`;
    case 'tool.arg-refused':
      return join(`tool ${e.tool} refused by ${e.rule}`, e.reason);
    case 'credential.found':
      return join(
        `${e.action} in ${e.where}`,
        e.tool && `tool ${e.tool}`,
        e.method && `method ${e.method}`,
        describeHits(e.found),
      );
    case 'roots.answered':
      return join(
        `roots offered ${e.offered.length ? e.offered.join(' ') : 'none'}`,
        e.leftOut.length > 0 &&
          `left out ${e.leftOut.map((l) => `${l.uri} (${l.reason})`).join(' ')}`,
      );
    case 'folder.requested':
      return `ask folder ${e.path} grant ${e.grantId}`;
    case 'folder.decided':
      return join(`${e.decision} folder ${e.path} by ${e.by} grant ${e.grantId}`, e.reason);
    case 'mcp.server-request':
      return join(`server asked ${e.method}`, `${e.sizeBytes} bytes`, e.reason);
    case 'mcp.client-answer':
      return join(
        `client answered ${e.method}`,
        e.error && `error ${e.error.code} ${e.error.message}`,
        e.resultSummary,
        `${Math.round(e.durationMs)} ms ${e.sizeBytes} bytes`,
      );
  }
}

/** What an answer's row says first: the method, the tool, the error or the result. */
function answered(e: AuditEventOf<'mcp.response'> | AuditEventOf<'mcp.call'>): string {
  return join(
    e.method,
    e.tool && `tool ${e.tool}`,
    e.error && `error ${e.error.code} ${e.error.message}`,
    e.resultSummary,
  );
}

function join(...parts: (string | false | undefined | null)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.length > 0).join(', ');
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function exit(e: { exitCode?: number | null; signal?: string | null }): string | undefined {
  if (e.signal) return `signal ${e.signal}`;
  if (e.exitCode !== undefined && e.exitCode !== null) return `exit code ${e.exitCode}`;
  return undefined;
}
