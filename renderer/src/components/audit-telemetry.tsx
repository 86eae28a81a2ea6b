/**
 * The audit log's OpenTelemetry export, on the Audit log screen: where it goes and whether it
 * runs (or why not), changed here as `warden telemetry set|off` changes it. The core keeps each
 * header value in its secret store and never sends one back, so a change names every header
 * again with its value; the core's export follows the change at once.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { WardenApi } from '../../../app/contract/api';
import type { TelemetryStatus } from '../../../app/contract/telemetry';
import { toContractError } from '../store/servers/servers-slice';
import { Untrusted } from './untrusted';

type TelemetryApi = Pick<WardenApi, 'telemetry.get' | 'telemetry.set' | 'telemetry.off'>;

interface Header {
  name: string;
  value: string;
}

/** What a failed call says to the user: its message and remedy. */
function failure(error: unknown): string {
  const e = toContractError(error);
  return e.remedy ? `${e.message} ${e.remedy}` : e.message;
}

const exportLabels: Record<TelemetryStatus['export'], string> = {
  off: 'off',
  starting: 'starting',
  on: 'on',
  failed: 'set, but off',
};

export function AuditTelemetry(props: { api: TelemetryApi }) {
  const { api } = props;
  const [status, setStatus] = useState<TelemetryStatus>();
  const [editing, setEditing] = useState(false);
  const [endpoint, setEndpoint] = useState('');
  const [headers, setHeaders] = useState<Header[]>([]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');

  const load = useCallback(
    () =>
      api['telemetry.get']({}).then(setStatus, (e: unknown) =>
        setMessage(`Could not read the export: ${failure(e)}`),
      ),
    [api],
  );
  useEffect(() => void load(), [load]);
  // A starting export settles within moments: ask again until it has.
  useEffect(() => {
    if (status?.export !== 'starting') return;
    const again = setTimeout(() => void load(), 500);
    return () => clearTimeout(again);
  }, [status, load]);

  const edit = () => {
    setEndpoint(status?.settings?.endpoint ?? '');
    setHeaders((status?.settings?.headers ?? []).map((name) => ({ name, value: '' })));
    setMessage('');
    setEditing(true);
  };

  const change = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setMessage('');
    try {
      await work();
      setEditing(false);
      setMessage(done);
      await load();
    } catch (e) {
      setMessage(`Not saved: ${failure(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const onSave = (e: FormEvent) => {
    e.preventDefault();
    const named = headers.filter((h) => h.name.trim() !== '' || h.value !== '');
    if (named.some((h) => h.name.trim() === '' || h.value === '')) {
      setMessage('Give every header a name and a value, or remove it.');
      return;
    }
    void change(
      () =>
        api['telemetry.set']({
          endpoint: endpoint.trim(),
          headers: named.map((h) => ({ name: h.name.trim(), value: h.value })),
        }),
      'Saved; the export follows it now.',
    );
  };

  const setHeader = (i: number, patch: Partial<Header>) =>
    setHeaders((hs) => hs.map((h, j) => (j === i ? { ...h, ...patch } : h)));

  const settings = status?.settings;
  return (
    <div className="audit-telemetry" data-telemetry={status?.export ?? 'unknown'}>
      <div className="audit-setting">
        <span>
          OpenTelemetry export: <strong>{status ? exportLabels[status.export] : '…'}</strong>
          {settings && (
            <>
              {' '}
              to{' '}
              <code>
                <Untrusted text={settings.endpoint} />
              </code>
              {settings.headers.length > 0 && (
                <span className="muted">
                  {' '}
                  with {settings.headers.length === 1 ? 'header' : 'headers'}{' '}
                  <Untrusted text={settings.headers.join(', ')} />
                </span>
              )}
            </>
          )}
        </span>
        {status && !editing && (
          <button type="button" onClick={edit} disabled={busy}>
            {settings ? 'Change export' : 'Set up export'}
          </button>
        )}
        {settings && !editing && (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void change(
                () => api['telemetry.off']({}),
                'The export is off; its header values are forgotten.',
              )
            }
          >
            Turn export off
          </button>
        )}
        {!editing && (
          <span role="status" className="muted">
            {message}
          </span>
        )}
      </div>
      {status?.export === 'failed' && status.problem && (
        <p className="notice notice-warn">
          The export is off: <Untrusted text={status.problem} />
        </p>
      )}
      {editing && (
        <form className="telemetry-form" aria-label="OpenTelemetry export" onSubmit={onSave}>
          <label>
            Collector endpoint (OTLP over HTTP)
            <input
              type="url"
              value={endpoint}
              required
              placeholder="https://collector.example.com:4318"
              onChange={(e) => setEndpoint(e.target.value)}
            />
          </label>
          <p className="hint">
            Header values (an API key) are kept in the secret store and never shown again: enter
            each one to save a change.
          </p>
          {headers.map((h, i) => (
            <div className="telemetry-header" key={i}>
              <input
                aria-label={`Header ${i + 1} name`}
                placeholder="Name"
                value={h.name}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => setHeader(i, { name: e.target.value })}
              />
              <input
                type="password"
                aria-label={`Header ${i + 1} value`}
                placeholder="Value"
                value={h.value}
                autoComplete="off"
                onChange={(e) => setHeader(i, { value: e.target.value })}
              />
              <button
                type="button"
                aria-label={`Remove header ${i + 1}`}
                onClick={() => setHeaders((hs) => hs.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </div>
          ))}
          <div className="actions">
            <button
              type="button"
              onClick={() => setHeaders((hs) => [...hs, { name: '', value: '' }])}
            >
              Add header
            </button>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save export'}
            </button>
            <button type="button" onClick={() => setEditing(false)} disabled={busy}>
              Cancel
            </button>
            <span role="status" className="muted">
              {message}
            </span>
          </div>
        </form>
      )}
    </div>
  );
}
