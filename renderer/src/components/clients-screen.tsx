/**
 * AI clients on this machine: which are installed, which of their servers go through Warden, and
 * connect/disconnect. Connect shows the diff of the client's file first; the backup of the
 * original is shown once connected; disconnect gives the client its own entries back.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { type ClientId, clientFormats } from '../../../app/clients/client-formats';
import { ClientSelect } from './client-select';
import type {
  ClientStatus,
  ClientsApi,
  ConnectPreview,
  ConnectResult,
  DisconnectResult,
} from '../../../app/contract/clients';
import { DiffView } from './diff-view';
import { callErrorText } from './import-screen';
import { Untrusted } from './untrusted';
import { showUntrusted } from '../../../app/text/untrusted-text';

type Transport = 'stdio' | 'http';

function ClientFiles(props: {
  status: ClientStatus;
  onDisconnect: (client: ClientId, path: string) => void;
  onRevoke: (client: ClientId, path: string) => void;
  onUpdate: (client: ClientId, path: string) => void;
  busy: boolean;
}) {
  const files = props.status.files.filter((f) => f.exists);
  if (files.length === 0) return <p className="muted">No config file found.</p>;
  return (
    <ul className="client-files">
      {files.map((f) => (
        <li key={f.path} data-file={f.path} data-connected={f.connected} className="client-file">
          <div className="client-file-head">
            <code>{showUntrusted(f.path)}</code>
            {f.connected ? (
              <span className="badge badge-sandboxed">connected through Warden</span>
            ) : (
              <span className="tag">not connected</span>
            )}
            {f.connected && (
              <button
                type="button"
                className="danger-outline"
                disabled={props.busy}
                onClick={() => props.onDisconnect(props.status.client, f.path)}
              >
                Disconnect {props.status.label}
              </button>
            )}
          </div>
          {f.connected && (
            <p className="muted hint">Backup of the original: {showUntrusted(f.backup ?? '')}</p>
          )}
          {f.servers.some((s) => s.startCommandOutdated) && (
            <p className="notice" data-outdated="true">
              Some entries start Warden with an older command, which starts slower than this
              Warden&apos;s.{' '}
              <button
                type="button"
                disabled={props.busy}
                onClick={() => props.onUpdate(props.status.client, f.path)}
              >
                Preview the update
              </button>
            </p>
          )}
          {f.gatewayToken && (
            <p className="muted" data-token-state={f.gatewayToken.state}>
              Gateway token: {f.gatewayToken.state}
              {f.gatewayToken.revokedWhy && (
                <>
                  {' '}
                  (<Untrusted text={f.gatewayToken.revokedWhy} />)
                </>
              )}{' '}
              {f.gatewayToken.state === 'active' && (
                <button
                  type="button"
                  className="danger-outline"
                  disabled={props.busy}
                  onClick={() => props.onRevoke(props.status.client, f.path)}
                >
                  Revoke token
                </button>
              )}
            </p>
          )}
          {f.error && (
            <div className="notice notice-error" data-file-error="true">
              <p>{f.problem ? `This file ${showUntrusted(f.problem)}.` : showUntrusted(f.error)}</p>
              {f.remedy && <p className="remedy">To fix: {showUntrusted(f.remedy)}</p>}
            </div>
          )}
          <ul className="item-list">
            {f.servers.map((s) => (
              <li
                key={s.entryName}
                className="item"
                data-server={s.entryName}
                data-through={s.throughWarden ?? ''}
              >
                <span className="item-name">{showUntrusted(s.entryName)}</span>
                {s.throughWarden ? (
                  <>
                    <span className="tag tag-ok">through Warden</span>
                    <span className="muted">as “{showUntrusted(s.throughWarden)}”</span>
                    {s.startCommandOutdated && (
                      <span className="tag tag-warn">older start command</span>
                    )}
                  </>
                ) : s.kind === 'remote' ? (
                  <span className="tag">remote, not through Warden</span>
                ) : s.kind === 'invalid' ? (
                  <span className="tag tag-error">not runnable as written</span>
                ) : (
                  <span className="tag tag-warn">not through Warden</span>
                )}
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

/** Whether every entry these files would rewrite goes through Warden already (a new command). */
const onlyUpdates = (files: readonly ConnectPreview[]) =>
  files.some((f) => f.rewritten.length > 0) &&
  files.every((f) => f.rewritten.every((r) => r.updated === true));

export function ClientsScreen(props: { api: ClientsApi; initialClient?: ClientId }) {
  const { api } = props;
  const id = useId();
  const [status, setStatus] = useState<ClientStatus[] | undefined>();
  const [client, setClient] = useState<ClientId>(props.initialClient ?? 'claude-desktop');
  const [path, setPath] = useState('');
  const [transport, setTransport] = useState<Transport | ''>('');
  const [preview, setPreview] = useState<ConnectPreview[] | undefined>();
  const [done, setDone] = useState<ConnectResult[] | DisconnectResult[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  /** The preview, shown above the list: brought into view when a file's update asks for it. */
  const previewRef = useRef<HTMLDivElement>(null);
  const [reveal, setReveal] = useState(false);
  useEffect(() => {
    if (!reveal || !preview) return;
    setReveal(false);
    previewRef.current?.scrollIntoView({ block: 'start' });
    previewRef.current?.focus();
  }, [reveal, preview]);

  const reload = useCallback(async () => setStatus(await api['clients.list']({})), [api]);
  useEffect(() => {
    reload().catch((e: unknown) => setError(callErrorText(e)));
  }, [reload]);

  const input = {
    client,
    ...(path.trim() ? { path: path.trim() } : {}),
    ...(transport ? { transport } : {}),
  };
  const run = (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    work()
      .catch((e: unknown) => setError(callErrorText(e)))
      .finally(() => setBusy(false));
  };
  const showPreview = () =>
    run(async () => {
      setDone(undefined);
      setPreview(await api['clients.connectPreview'](input));
    });
  // The form is set to the file, so that what the preview leads to connects that same file.
  const previewUpdate = (c: ClientId, file: string) =>
    run(async () => {
      setClient(c);
      setPath(file);
      setTransport('');
      setDone(undefined);
      setPreview(await api['clients.connectPreview']({ client: c, path: file }));
      setReveal(true);
    });
  const connect = () =>
    run(async () => {
      setDone(await api['clients.connect'](input));
      setPreview(undefined);
      await reload();
    });
  const revoke = (c: ClientId, file: string) =>
    run(async () => {
      await api['clients.revokeToken']({ client: c, path: file });
      await reload();
    });
  const disconnect = (c: ClientId, file: string) =>
    run(async () => {
      setDone(await api['clients.disconnect']({ client: c, path: file }));
      setPreview(undefined);
      await reload();
    });

  return (
    <section className="panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>AI clients</h2>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <fieldset className="field connect-form">
        <legend>Connect a client through Warden</legend>
        <label htmlFor={`${id}-client`}>Client</label>
        <ClientSelect id={`${id}-client`} value={client} onChange={setClient} />
        <label htmlFor={`${id}-path`}>Config file (optional)</label>
        <input id={`${id}-path`} value={path} onChange={(e) => setPath(e.target.value)} />
        <label htmlFor={`${id}-transport`}>How the client reaches Warden</label>
        <select
          id={`${id}-transport`}
          value={transport}
          onChange={(e) => setTransport(e.target.value as Transport | '')}
        >
          <option value="">
            the client&apos;s best ({clientFormats[client].takesUrl ? 'HTTP URL' : 'stdio command'})
          </option>
          <option value="stdio">stdio: warden connect NAME</option>
          {clientFormats[client].takesUrl && (
            <option value="http">Streamable HTTP URL with token</option>
          )}
        </select>
        <div className="actions">
          <button type="button" disabled={busy} onClick={showPreview}>
            Preview changes
          </button>
        </div>
      </fieldset>
      {preview && (
        <div className="connect-preview" ref={previewRef} tabIndex={-1}>
          {preview.map((p) => (
            <div key={p.file} data-file={p.file}>
              <h3>
                Changes to <code>{showUntrusted(p.file)}</code> ({p.transport})
              </h3>
              <ul className="item-list">
                {p.rewritten.map((r) => (
                  <li key={r.entryName} className="item" data-updated={r.updated === true}>
                    <span className="item-name">{showUntrusted(r.entryName)}</span>
                    <span className="tag tag-ok">
                      {r.updated ? 'start command updated' : 'through Warden'}
                    </span>
                    <span className="muted">
                      {r.updated
                        ? `already through Warden as “${showUntrusted(r.server)}”, with another start command`
                        : `as “${showUntrusted(r.server)}”`}
                    </span>
                  </li>
                ))}
                {p.untouched.map((u) => (
                  <li key={u.entryName} className="item">
                    <span className="item-name">{showUntrusted(u.entryName)}</span>
                    <span className="tag">unchanged</span>
                    <span className="muted">{showUntrusted(u.reason)}</span>
                  </li>
                ))}
              </ul>
              <DiffView diff={p.diff} label={`Diff of ${showUntrusted(p.file)}`} />
            </div>
          ))}
          <div className="actions">
            <p className="muted">A backup of the original file is kept; disconnect restores it.</p>
            <button
              type="button"
              className="primary"
              disabled={busy || preview.every((p) => p.rewritten.length === 0)}
              onClick={connect}
            >
              {onlyUpdates(preview) ? 'Update' : 'Connect'} {clientFormats[client].label}
            </button>
          </div>
        </div>
      )}
      {done && (
        <div className="notice" role="status">
          {done.map((d) =>
            'backup' in d ? (
              <p key={d.file}>
                {onlyUpdates([d]) ? 'Updated the start command in' : 'Connected'}{' '}
                <code>{showUntrusted(d.file)}</code>. Backup of the original:{' '}
                <code>{showUntrusted(d.backup)}</code>. Restart the client to pick up the change.
                {d.transport === 'http' &&
                  ' Over HTTP the client reaches Warden only while the Warden app or "warden serve" runs.'}
                {d.notes?.map((n) => ` ${showUntrusted(n)}.`)}
              </p>
            ) : (
              <p key={d.file}>
                Disconnected <code>{showUntrusted(d.file)}</code>: {showUntrusted(d.message)}
              </p>
            ),
          )}
        </div>
      )}
      <h3>Clients on this machine</h3>
      {!status && <p className="muted">Looking for clients…</p>}
      <ul className="clients">
        {status?.map((s) => (
          <li
            key={s.client}
            data-client={s.client}
            data-installed={s.installed}
            className={s.installed ? 'client client-installed' : 'client'}
          >
            <div className="client-head">
              <strong>{s.label}</strong>
              <span className={s.installed ? 'tag tag-ok' : 'tag'}>
                {s.installed ? 'installed' : 'not found'}
              </span>
            </div>
            {s.installed && (
              <ClientFiles
                status={s}
                busy={busy}
                onDisconnect={disconnect}
                onRevoke={revoke}
                onUpdate={previewUpdate}
              />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
