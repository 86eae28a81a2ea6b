/**
 * The inbox: pending network grants and tool-call approvals, each with who asks, for what, and a
 * countdown to the automatic refusal; one click per decision.
 */
import { useEffect, useRef, useState } from 'react';
import type { GrantDecision, PendingGrant } from '../../../app/contract/grants';
import type { PendingApproval } from '../../../app/contract/tools';
import { inboxSelectors } from '../store/inbox/inbox-slice';
import { useRoot } from '../store/store-context';
import { Countdown } from './countdown';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';

const grantButtons: Array<{ decision: GrantDecision; label: string; danger?: boolean }> = [
  { decision: 'allow-once', label: 'Allow once' },
  { decision: 'allow-session', label: 'Allow for this session' },
  { decision: 'allow-always', label: 'Always allow' },
  { decision: 'deny', label: 'Deny', danger: true },
  { decision: 'deny-always', label: 'Always deny', danger: true },
];

function useFocusOn(tag: string, focus: string | undefined) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focus === tag) ref.current?.focus();
  }, [focus, tag]);
  return ref;
}

function GrantCard(props: { grant: PendingGrant; focus?: string }) {
  const g = props.grant;
  const decide = useRoot((s) => s.decideGrant);
  const [error, setError] = useState<string | undefined>();
  const ref = useFocusOn(`grant:${g.id}`, props.focus);
  const host = showUntrusted(g.host);
  const dest = `${host.includes(':') ? `[${host}]` : host}:${g.port}`;
  return (
    <li
      ref={ref}
      tabIndex={-1}
      className="inbox-item"
      data-grant={g.id}
      aria-label={`${g.server} wants to reach ${dest}`}
    >
      <p className="inbox-what">
        <strong>
          <Untrusted text={g.server} />
        </strong>{' '}
        wants to reach <code>{dest}</code>
      </p>
      <p className="hint">
        instance <code>{g.instance}</code>
        {g.waiting > 1 ? `, ${g.waiting} connections waiting` : ''} ·{' '}
        <Countdown until={g.expiresAt} />
      </p>
      <div className="actions">
        {grantButtons.map((b) => (
          <button
            key={b.decision}
            type="button"
            className={
              b.danger ? 'danger-outline' : b.decision === 'allow-session' ? 'primary' : undefined
            }
            onClick={() =>
              void decide(g.id, b.decision).then((r) =>
                setError(
                  r.ok ? (r.value ? undefined : 'Already decided or expired.') : r.error.message,
                ),
              )
            }
          >
            {b.label}
            <span className="visually-hidden">
              {' '}
              {dest} for <Untrusted text={g.server} />
            </span>
          </button>
        ))}
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

function ApprovalCard(props: { approval: PendingApproval; focus?: string }) {
  const a = props.approval;
  const decide = useRoot((s) => s.decideApproval);
  const [error, setError] = useState<string | undefined>();
  const ref = useFocusOn(`approval:${a.id}`, props.focus);
  const onDecide = (d: 'approve' | 'deny') =>
    void decide(a.id, d).then((r) =>
      setError(r.ok ? (r.value ? undefined : 'Already decided or expired.') : r.error.message),
    );
  return (
    <li
      ref={ref}
      tabIndex={-1}
      className="inbox-item"
      data-approval={a.id}
      aria-label={`${a.server} wants to call ${a.tool}`}
    >
      <p className="inbox-what">
        <strong>
          <Untrusted text={a.server} />
        </strong>{' '}
        wants to call{' '}
        <code>
          <Untrusted text={a.tool} />
        </code>
      </p>
      <p className="hint">
        instance <code>{a.instance}</code> · <Countdown until={a.expiresAt} />
      </p>
      <pre className="args" aria-label={`Arguments of ${a.tool}`}>
        {JSON.stringify(a.args, null, 2)}
      </pre>
      <div className="actions">
        <button type="button" className="primary" onClick={() => onDecide('approve')}>
          Allow call<span className="visually-hidden"> to {a.tool}</span>
        </button>
        <button type="button" className="danger-outline" onClick={() => onDecide('deny')}>
          Deny call<span className="visually-hidden"> to {a.tool}</span>
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function InboxScreen(props: { focus?: string }) {
  const grants = useRoot(inboxSelectors.grants);
  const approvals = useRoot(inboxSelectors.approvals);
  return (
    <>
      <section className="panel" aria-labelledby="grants-heading">
        <h2 id="grants-heading">Network grants ({grants.length})</h2>
        {grants.length === 0 ? (
          <p className="muted">No server is waiting to reach anywhere.</p>
        ) : (
          <ul className="inbox" aria-label="Pending network grants">
            {grants.map((g) => (
              <GrantCard key={g.id} grant={g} focus={props.focus} />
            ))}
          </ul>
        )}
      </section>
      <section className="panel" aria-labelledby="approvals-heading">
        <h2 id="approvals-heading">Tool calls waiting for approval ({approvals.length})</h2>
        {approvals.length === 0 ? (
          <p className="muted">No tool call is waiting.</p>
        ) : (
          <ul className="inbox" aria-label="Pending tool calls">
            {approvals.map((a) => (
              <ApprovalCard key={a.id} approval={a} focus={props.focus} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
