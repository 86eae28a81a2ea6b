/**
 * One server: name, isolation, state, full command line, a warning while it is unacknowledged,
 * and its actions (edit policy, duplicate, remove, stop).
 */
import { useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { instancesSelectors, runStateLabel } from '../store/instances/instances-selectors';
import { useRoot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ConfirmDialog } from './confirm-dialog';
import { IsolationBadge } from './isolation-badge';
import { ServerInstances } from './server-instances';
import { copyName } from './server-name';
import { Untrusted } from './untrusted';

export function ServerRow(props: { name: string }) {
  const view = useRoot(serversSelectors.byName(props.name));
  const run = useRoot(useShallow(instancesSelectors.runState(props.name)));
  const names = useRoot(useShallow(serversSelectors.names));
  const acknowledge = useRoot((s) => s.acknowledgeServer);
  const addServer = useRoot((s) => s.addServer);
  const removeServer = useRoot((s) => s.removeServer);
  const stopAll = useRoot((s) => s.stopServerInstances);
  const start = useRoot((s) => s.startServer);
  const navigate = useRoot((s) => s.navigate);
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const headingId = useId();
  if (!view) return null;
  const { server, commandLine, isolation } = view;
  const name = server.name;

  const report = (r: { ok: boolean; error?: { message: string; remedy?: string } }) =>
    setError(r.ok ? undefined : `${r.error?.message ?? ''} ${r.error?.remedy ?? ''}`.trim());

  const onDuplicate = async () => {
    const copy = copyName(name, new Set(names));
    const r = await addServer({ name: copy, launch: server.launch, policy: server.policy });
    report(r);
    if (r.ok) setStatus(`Duplicated as "${copy}".`);
  };

  return (
    <li className="server" aria-labelledby={headingId} data-server={name}>
      <div className="server-head">
        <h3 id={headingId} className="server-name">
          <Untrusted text={name} />
        </h3>
        <IsolationBadge isolation={isolation} />
        <span className={`run-state run-${run.kind}`} data-run-state={run.kind}>
          {runStateLabel(run)}
        </span>
        <span className="muted">revision {server.revision}</span>
      </div>
      <p className="command">
        <span className="visually-hidden">Command: </span>
        <code>
          <Untrusted text={commandLine} />
        </code>
      </p>
      {isolation.kind === 'unavailable' && <p className="remedy">To fix: {isolation.remedy}</p>}
      {run.kind === 'failed' && run.remedy && <p className="remedy">To fix: {run.remedy}</p>}
      {(run.kind === 'failed' || run.kind === 'stopped') && run.lastOutput && (
        <p className="remedy">
          Its last output:{' '}
          <code>
            <Untrusted text={run.lastOutput} />
          </code>
        </p>
      )}
      {run.kind === 'running' && run.oldestRevision < server.revision && (
        <p className="notice notice-warn">
          Restart to apply: an instance runs revision {run.oldestRevision}, the policy is at
          revision {server.revision}.
        </p>
      )}
      <ServerInstances server={name} revision={server.revision} />
      {!server.acknowledged && (
        <div className="notice notice-warn" role="note">
          <p>
            New server, never started. Warden will run exactly the command above
            {isolation.kind === 'off' ? ', without a sandbox, with your full user rights' : ''}.
            Check it before the first start.
          </p>
          <button type="button" onClick={() => void acknowledge(name).then(report)}>
            I have checked this command
            <span className="visually-hidden"> for {name}</span>
          </button>
        </div>
      )}
      <div className="actions row-actions">
        <button type="button" onClick={() => navigate({ kind: 'policy', server: name })}>
          Edit policy<span className="visually-hidden"> of {name}</span>
        </button>
        <button type="button" onClick={() => void onDuplicate()}>
          Duplicate<span className="visually-hidden"> {name}</span>
        </button>
        {server.acknowledged && (
          <button type="button" onClick={() => void start(name).then(report)}>
            Start<span className="visually-hidden"> {name}</span>
          </button>
        )}
        {run.kind === 'running' && (
          <button type="button" onClick={() => void stopAll(name).then(report)}>
            Stop<span className="visually-hidden"> every instance of {name}</span>
          </button>
        )}
        <button type="button" className="danger-outline" onClick={() => setConfirmRemove(true)}>
          Remove<span className="visually-hidden"> {name}</span>
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <p className="status" role="status">
        {status}
      </p>
      <ConfirmDialog
        open={confirmRemove}
        title={`Remove "${name}"?`}
        confirmLabel="Remove"
        danger
        onCancel={() => setConfirmRemove(false)}
        onConfirm={() => {
          setConfirmRemove(false);
          void removeServer(name).then(report);
        }}
      >
        <p>
          Its running instances are stopped and its policy is deleted. The audit log keeps its
          history.
        </p>
      </ConfirmDialog>
    </li>
  );
}
