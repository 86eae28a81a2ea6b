/**
 * The inbox: pending network grants, folder grants and tool-call approvals, each with who asks,
 * for what (a call's full arguments, redacted, and why it asks), and a countdown to the automatic
 * refusal; one click per decision.
 */
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import type { FolderDecision, PendingFolderGrant } from '../../../app/contract/folder-grants';
import type { GrantDecision, PendingGrant } from '../../../app/contract/grants';
import type { ApprovalDecision, PendingApproval } from '../../../app/contract/tools';
import { inboxSelectors } from '../store/inbox/inbox-slice';
import { useRoot } from '../store/store-context';
import { Countdown } from './countdown';
import { ApprovalPattern, approvalReasonText } from './approval-pattern';
import { type DecisionButton, DecisionActions, decisionError } from './decision-actions';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';
import type { Result } from '../../../app/result';

const grantButtons: Array<{ decision: GrantDecision; label: string; className?: string }> = [
  { decision: 'allow-once', label: 'Allow once' },
  { decision: 'allow-session', label: 'Allow for this session', className: 'primary' },
  { decision: 'allow-always', label: 'Always allow' },
  { decision: 'deny', label: 'Deny', className: 'danger-outline' },
  { decision: 'deny-always', label: 'Always deny', className: 'danger-outline' },
];

const folderButtons: Array<{ decision: FolderDecision; label: string; className?: string }> = [
  { decision: 'allow-read-session', label: 'Read-only for this session', className: 'primary' },
  { decision: 'allow-write-session', label: 'Read-write for this session' },
  { decision: 'allow-read-always', label: 'Always read-only' },
  { decision: 'allow-write-always', label: 'Always read-write' },
  { decision: 'deny', label: 'Deny', className: 'danger-outline' },
];

/** One pending request: focusable (a notification click lands on it), who asks and for what. */
function InboxCard(props: {
  tag: string;
  focus: string | undefined;
  data: Record<`data-${string}`, string>;
  label: string;
  server: string;
  what: ReactNode;
  hint: ReactNode;
  children: ReactNode;
}) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (props.focus === props.tag) ref.current?.focus();
  }, [props.focus, props.tag]);
  return (
    <li ref={ref} tabIndex={-1} className="inbox-item" {...props.data} aria-label={props.label}>
      <p className="inbox-what">
        <strong>
          <Untrusted text={props.server} />
        </strong>{' '}
        {props.what}
      </p>
      <p className="hint">{props.hint}</p>
      {props.children}
    </li>
  );
}

/** A grant card's hint (its instance, a note, the countdown) and its decision buttons. */
function grantParts<D extends string>(props: {
  instance: string;
  note: ReactNode;
  expiresAt: string;
  buttons: ReadonlyArray<{ decision: D; label: string; className?: string }>;
  context: ReactNode;
  decide: (decision: D) => Promise<Result<boolean, ContractError>>;
}) {
  return {
    hint: (
      <>
        instance <code className="instance-id">{props.instance}</code>
        {props.note} · <Countdown until={props.expiresAt} />
      </>
    ),
    actions: (
      <DecisionActions
        buttons={props.buttons.map((b) => ({ ...b, context: props.context }))}
        decide={async (d) => decisionError(await props.decide(d))}
      />
    ),
  };
}

function GrantCard(props: { grant: PendingGrant; focus?: string }) {
  const g = props.grant;
  const decide = useRoot((s) => s.decideGrant);
  const host = showUntrusted(g.host);
  const dest = `${host.includes(':') ? `[${host}]` : host}:${g.port}`;
  const parts = grantParts({
    instance: g.instance,
    note: g.waiting > 1 ? `, ${g.waiting} connections waiting` : '',
    expiresAt: g.expiresAt,
    buttons: grantButtons,
    context: (
      <>
        {' '}
        {dest} for <Untrusted text={g.server} />
      </>
    ),
    decide: (d) => decide(g.id, d),
  });
  return (
    <InboxCard
      tag={`grant:${g.id}`}
      focus={props.focus}
      data={{ 'data-grant': g.id }}
      label={`${g.server} wants to reach ${dest}`}
      server={g.server}
      what={
        <>
          wants to reach <code data-dest>{dest}</code>
        </>
      }
      hint={parts.hint}
    >
      {parts.actions}
    </InboxCard>
  );
}

function ApprovalCard(props: { approval: PendingApproval; focus?: string }) {
  const a = props.approval;
  const decide = useRoot((s) => s.decideApproval);
  const [pattern, setPattern] = useState(a.pattern);
  const context = <> to {a.tool}</>;
  const buttons: DecisionButton<ApprovalDecision>[] = [
    { decision: 'approve', label: 'Allow once', className: 'primary', context },
    { decision: 'approve-session', label: 'Allow for this session', context },
    ...(pattern
      ? [{ decision: 'approve-always' as const, label: 'Always allow these arguments', context }]
      : []),
    { decision: 'deny', label: 'Deny call', className: 'danger-outline', context },
  ];
  return (
    <InboxCard
      tag={`approval:${a.id}`}
      focus={props.focus}
      data={{ 'data-approval': a.id }}
      label={`${a.server} wants to call ${a.tool}`}
      server={a.server}
      what={
        <>
          wants to call{' '}
          <code>
            <Untrusted text={a.tool} />
          </code>
        </>
      }
      hint={
        <>
          instance <code className="instance-id">{a.instance}</code> ·{' '}
          <Countdown until={a.expiresAt} />
        </>
      }
    >
      <p className="approval-reason">{approvalReasonText(a.reason)}</p>
      <pre className="args" aria-label={`Arguments of ${a.tool}`}>
        <Untrusted text={JSON.stringify(a.args, null, 2) ?? 'no arguments'} multiline />
      </pre>
      {pattern && <ApprovalPattern tool={a.tool} pattern={pattern} onChange={setPattern} />}
      <DecisionActions
        buttons={buttons}
        decide={async (d) =>
          decisionError(await decide(a.id, d, d === 'approve-always' ? pattern : undefined))
        }
      />
    </InboxCard>
  );
}

function FolderCard(props: { folder: PendingFolderGrant; focus?: string }) {
  const f = props.folder;
  const decide = useRoot((s) => s.decideFolder);
  const parts = grantParts({
    instance: f.instance,
    note: ' · allowing restarts the instance with the folder',
    expiresAt: f.expiresAt,
    buttons: folderButtons,
    context: (
      <>
        {' '}
        <Untrusted text={f.path} /> for <Untrusted text={f.server} />
      </>
    ),
    decide: (d) => decide(f.id, d),
  });
  return (
    <InboxCard
      server={f.server}
      label={`${f.client} offers ${f.server} the folder ${f.path}`}
      data={{ 'data-folder': f.id }}
      tag={`folder:${f.id}`}
      focus={props.focus}
      what={
        <>
          is offered the folder{' '}
          <code>
            <Untrusted text={f.path} />
          </code>{' '}
          by its client <Untrusted text={f.client} />, outside its policy
        </>
      }
      hint={parts.hint}
    >
      {parts.actions}
    </InboxCard>
  );
}

export function InboxScreen(props: { focus?: string }) {
  const grants = useRoot(inboxSelectors.grants);
  const approvals = useRoot(inboxSelectors.approvals);
  const folders = useRoot(inboxSelectors.folders);
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
      {folders.length > 0 && (
        <section className="panel" aria-labelledby="folders-heading">
          <h2 id="folders-heading">Folders offered by clients ({folders.length})</h2>
          <ul className="inbox" aria-label="Pending folder grants">
            {folders.map((f) => (
              <FolderCard key={f.id} folder={f} focus={props.focus} />
            ))}
          </ul>
        </section>
      )}
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
