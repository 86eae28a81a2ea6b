/**
 * One server as a dense row: health and name, the sandbox switch, its folders and its network
 * (each change saved at once, with undo), its live activity, why it failed with the fix when it
 * did, a warning while its command is unconfirmed, and its actions.
 */
import { memo, useId, useState } from 'react';
import type { FailureHint } from '../../../app/contract/instances';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { instancesSelectors, runStateLabel } from '../store/instances/instances-selectors';
import { useRoot, useRootSnapshot } from '../store/store-context';
import { serversSelectors } from '../store/servers/servers-selectors';
import { ConfirmDialog } from './confirm-dialog';
import { ServerExceptions } from './guard-exceptions';
import { IsolationBadge } from './isolation-badge';
import { normalPattern } from './policy-checks';
import { RowActivity } from './row-activity';
import { RowFailure } from './row-failure';
import { RowFolders } from './row-folders';
import { RowHoldProvider, useHoldKey } from './row-hold';
import { RowNetwork } from './row-network';
import { SandboxOffDialog } from './sandbox-off-dialog';
import { copyName } from './server-name';
import { SwitchButton } from './switch-button';
import { useInlinePolicy } from './use-inline-policy';
import { usePolicyLocks } from './use-policy-locks';

export const ServerRow = memo(function ServerRow(props: {
  name: string;
  /** Ref callback that measures the row (the list renders only the rows in view). */
  measure?: (el: HTMLElement | null) => (() => void) | undefined;
  /** Offset from the list's top, px, where the list places its rows itself. */
  top?: number;
  /** 1-based place in the whole list, and its length, for assistive technology. */
  position?: number;
  total?: number;
}) {
  const view = useRoot(serversSelectors.byName(props.name));
  const run = useRoot(instancesSelectors.runState(props.name));
  const snapshot = useRootSnapshot();
  const acknowledge = useRoot((s) => s.acknowledgeServer);
  const addServer = useRoot((s) => s.addServer);
  const removeServer = useRoot((s) => s.removeServer);
  const stopAll = useRoot((s) => s.stopServerInstances);
  const start = useRoot((s) => s.startServer);
  const navigate = useRoot((s) => s.navigate);
  const save = useInlinePolicy(props.name);
  const locks = usePolicyLocks();
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [confirmOff, setConfirmOff] = useState(false);
  // A windowed list keeps this row rendered while one of its confirmations is open.
  useHoldKey(props.name, confirmRemove || confirmOff);
  const headingId = useId();
  if (!view) return null;
  const { server, commandLine, isolation } = view;
  const name = server.name;
  const policy = server.policy;
  const sandboxed = policy.isolation === 'sandbox';
  const live = run.kind === 'ready' || run.kind === 'starting';

  const report = (r: { ok: boolean; error?: { message: string; remedy?: string } }) =>
    setError(r.ok ? undefined : `${r.error?.message ?? ''} ${r.error?.remedy ?? ''}`.trim());

  const onDuplicate = async () => {
    const copy = copyName(name, new Set(serversSelectors.names(snapshot())));
    const r = await addServer({ name: copy, launch: server.launch, policy: server.policy });
    report(r);
    if (r.ok) setStatus(`Duplicated as "${copy}".`);
  };
  const allowHost = (host: string) => {
    const pattern = normalPattern(host);
    void save(`${pattern} allowed.`, (p) => ({
      ...p,
      network: {
        ...p.network,
        mode: p.network.mode === 'none' ? 'allowlist' : p.network.mode,
        allow: p.network.allow.includes(pattern) ? p.network.allow : [...p.network.allow, pattern],
        deny: p.network.deny.filter((d) => d !== pattern),
      },
    }));
  };
  const fix = (hint: FailureHint) =>
    void (hint.kind === 'add-folder'
      ? save(`Folder ${hint.folder} added, read only.`, (p) => ({
          ...p,
          filesystem: { roots: [...p.filesystem.roots, { path: hint.folder, access: 'read' }] },
        }))
      : save(`Folder ${hint.root} is now read and write.`, (p) => ({
          ...p,
          filesystem: {
            roots: p.filesystem.roots.map((r) =>
              r.path === hint.root ? { ...r, access: 'write' } : r,
            ),
          },
        })));

  const restartNeeded =
    (run.kind === 'ready' || run.kind === 'starting') &&
    run.oldestRevision !== undefined &&
    run.oldestRevision < server.revision;

  return (
    <li
      className={`server server-${run.kind} ${sandboxed ? '' : 'server-unsandboxed'}`}
      aria-labelledby={headingId}
      aria-posinset={props.position}
      aria-setsize={props.total}
      data-server={name}
      data-row-key={name}
      ref={props.measure}
      style={props.top === undefined ? undefined : { transform: `translateY(${props.top}px)` }}
    >
      <div className="server-head">
        <span className={`health health-${run.kind}`} data-run-state={run.kind}>
          {runStateLabel(run)}
        </span>
        <h3 id={headingId} className="server-name">
          {showUntrusted(name)}
        </h3>
        <IsolationBadge isolation={isolation} />
        <SwitchButton
          checked={sandboxed}
          label="Sandbox"
          context={`for ${name}`}
          locked={sandboxed ? locks.isolationOff() : undefined}
          onChange={(on) =>
            on
              ? void save(`Sandbox turned on for ${name}.`, (p) => ({ ...p, isolation: 'sandbox' }))
              : setConfirmOff(true)
          }
        />
        <span className="muted revision">rev {server.revision}</span>
        <div className="actions row-actions">
          {server.acknowledged && !live && (
            <button type="button" onClick={() => void start(name).then(report)}>
              Start<span className="visually-hidden"> {name}</span>
            </button>
          )}
          {live && (
            <button type="button" onClick={() => void stopAll(name).then(report)}>
              Stop<span className="visually-hidden"> every instance of {name}</span>
            </button>
          )}
          <button type="button" onClick={() => navigate({ kind: 'server', server: name })}>
            Details<span className="visually-hidden"> of {name}</span>
          </button>
          <button type="button" onClick={() => navigate({ kind: 'policy', server: name })}>
            Edit policy<span className="visually-hidden"> of {name}</span>
          </button>
          <button type="button" onClick={() => void onDuplicate()}>
            Duplicate<span className="visually-hidden"> {name}</span>
          </button>
          <button type="button" className="danger-outline" onClick={() => setConfirmRemove(true)}>
            Remove<span className="visually-hidden"> {name}</span>
          </button>
        </div>
      </div>
      <p className="command">
        <span className="visually-hidden">Command: </span>
        <code title={showUntrusted(commandLine)}>{showUntrusted(commandLine)}</code>
      </p>
      {isolation.kind === 'unavailable' && (
        <p className="remedy">To fix: {showUntrusted(isolation.remedy)}</p>
      )}
      {!sandboxed && (
        <p className="unsandboxed-note">
          Not sandboxed: runs with your full user rights. Folders and network below are not
          enforced.
        </p>
      )}
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
      <div className="server-policy">
        <RowHoldProvider rowKey={name}>
          <RowFolders server={name} roots={policy.filesystem.roots} disabled={false} save={save} />
          <RowNetwork
            server={name}
            network={policy.network}
            disabled={false}
            save={save}
            refuse={locks.allow}
          />
        </RowHoldProvider>
      </div>
      <ServerExceptions server={name} guards={policy.guards} />
      <RowActivity
        server={name}
        onAllow={allowHost}
        allowed={(host) => policy.network.allow.includes(normalPattern(host))}
      />
      <RowFailure server={name} run={run} onFix={fix} />
      {restartNeeded && (
        <p className="notice notice-warn">
          Restart to apply: an instance runs revision {run.oldestRevision}, the policy is at
          revision {server.revision}.
        </p>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {status && (
        <p className="status" role="status">
          {status}
        </p>
      )}
      {confirmRemove && (
        <ConfirmDialog
          open
          title={`Remove "${showUntrusted(name)}"?`}
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
      )}
      {confirmOff && (
        <SandboxOffDialog
          open
          server={name}
          onCancel={() => setConfirmOff(false)}
          onConfirm={() => {
            setConfirmOff(false);
            void save(`Sandbox turned off for ${name}.`, (p) => ({ ...p, isolation: 'off' }));
          }}
        />
      )}
    </li>
  );
});
