/**
 * The selected audit row in full: when and where, the request, the response and the decision
 * (every payload as the core stored it, already redacted), and its place in the hash chain.
 */
import type { AuditEvent, AuditEventOf } from '../../../app/audit/audit-event';
import type { AuditRow } from '../../../app/audit/audit-row';
import { auditEventText } from '../../../app/audit/audit-text';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { auditSelectors } from '../store/audit/audit-selectors';
import { useRoot } from '../store/store-context';

function Json(props: { label: string; value: unknown }) {
  return (
    <section className="detail-block">
      <h4>{props.label}</h4>
      <pre tabIndex={0} aria-label={props.label}>
        {props.value === undefined
          ? '(none)'
          : showUntrusted(JSON.stringify(props.value, null, 2), { multiline: true })}
      </pre>
    </section>
  );
}

/** A duration in ms as a person reads it: to the µs (the stored event keeps every digit). */
const toMicroseconds = (ms: number) => Math.round(ms * 1000) / 1000;

/** The parts of an event shown under Request, Response and Decision. */
export function detailParts(e: AuditEvent, pair: AuditEvent | undefined) {
  // A call recorded in one row is both its request and its response.
  const req = [e, pair].find(
    (x): x is AuditEventOf<'mcp.request'> | AuditEventOf<'mcp.call'> =>
      x?.kind === 'mcp.request' || x?.kind === 'mcp.call',
  );
  const res = [e, pair].find(
    (
      x,
    ): x is
      AuditEventOf<'mcp.response'> | AuditEventOf<'mcp.call'> | AuditEventOf<'mcp.client-answer'> =>
      x?.kind === 'mcp.response' || x?.kind === 'mcp.call' || x?.kind === 'mcp.client-answer',
  );
  // A server's request to the client, and the client's answer to it.
  const asked = [e, pair].find(
    (x): x is AuditEventOf<'mcp.server-request'> => x?.kind === 'mcp.server-request',
  );
  const request = req
    ? {
        method: req.method,
        tool: req.tool,
        arguments: req.args,
        requestId: req.requestId,
        client: req.client,
        sizeBytes: req.kind === 'mcp.call' ? req.requestBytes : req.sizeBytes,
      }
    : asked
      ? { from: 'server', method: asked.method, params: asked.params, requestId: asked.requestId }
      : e.kind === 'approval.requested' || e.kind === 'tool.arg-refused'
        ? { tool: e.tool, arguments: e.args }
        : e.kind === 'grant.requested' || e.kind === 'network.decision'
          ? { host: e.host, port: e.port }
          : undefined;
  const response = res
    ? {
        ...(res.kind === 'mcp.client-answer' && { from: 'client' }),
        result: res.resultSummary,
        error: res.error,
        durationMs: toMicroseconds(res.durationMs),
        sizeBytes: res.sizeBytes,
      }
    : undefined;
  const decision =
    e.kind === 'network.decision'
      ? {
          decision: e.decision,
          by: e.by,
          rule: e.rule,
          reason: e.reason,
          address: e.resolvedAddress,
        }
      : e.kind === 'grant.decided' || e.kind === 'approval.decided'
        ? { decision: e.decision, by: e.by }
        : e.kind === 'tool.drift'
          ? { change: e.change, fields: e.fields, action: e.action }
          : e.kind === 'tool.arg-refused'
            ? { rule: e.rule, reason: e.reason }
            : e.kind === 'credential.found'
              ? { where: e.where, action: e.action, found: e.found }
              : asked?.reason !== undefined
                ? { decision: 'refused', reason: asked.reason }
                : undefined;
  return { request, response, decision };
}

export function AuditDetail() {
  const row: AuditRow | undefined = useRoot(auditSelectors.selected);
  const pair = useRoot(auditSelectors.pairOfSelected);
  if (!row) {
    return (
      <aside className="audit-detail" aria-label="Event detail">
        <p className="muted">Select an event to see its request, response and decision.</p>
      </aside>
    );
  }
  const parts = detailParts(row.event, pair?.event);
  return (
    <aside className="audit-detail" aria-label="Event detail" data-detail-id={row.id}>
      <h3>
        #{row.id} {row.kind} <span className={`tag tag-${row.outcome}`}>{row.outcome}</span>
      </h3>
      <dl>
        <dt>Time</dt>
        <dd>{row.ts}</dd>
        <dt>Server</dt>
        <dd>{row.server ? showUntrusted(row.server) : '—'}</dd>
        <dt>Instance</dt>
        <dd>{row.instance ?? '—'}</dd>
        <dt>Summary</dt>
        <dd>{showUntrusted(auditEventText(row.event))}</dd>
      </dl>
      {parts.request && <Json label="Request (redacted)" value={parts.request} />}
      {parts.response && <Json label="Response (redacted)" value={parts.response} />}
      {parts.decision && <Json label="Decision" value={parts.decision} />}
      <details>
        <summary>Stored event and hash</summary>
        <Json label="Event" value={row.event} />
        <p className="hash">
          hash <code>{row.hash}</code>
          <br />
          previous <code>{row.prevHash}</code>
        </p>
      </details>
    </aside>
  );
}
