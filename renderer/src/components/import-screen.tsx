/**
 * Import from an AI client: pick the client (and, if needed, the file), see every server with its
 * full command, the policy Warden proposes and why, and the warnings; choose which to import and
 * under which name. Nothing is imported, and nothing starts, until the user confirms.
 */
import { type FormEvent, useId, useState } from 'react';
import type { ClientId } from '../../../app/clients/client-formats';
import { ClientSelect } from './client-select';
import type {
  ClientsApi,
  ImportCandidate,
  ImportPreview,
  ImportResult,
} from '../../../app/contract/clients';
import type { ContractError } from '../../../app/contract/contract-error';
import { showUntrusted } from '../../../app/text/untrusted-text';

/** A failed contract call's message and remedy, escaped: it may quote a server or a file. */
export function callErrorText(error: unknown): string {
  const e = (error as { error?: ContractError }).error;
  if (e) return showUntrusted(`${e.message}${e.remedy ? ` (${e.remedy})` : ''}`);
  return showUntrusted(error instanceof Error ? error.message : String(error));
}

interface Choice {
  include: boolean;
  name: string;
}

function CandidateCard(props: {
  c: ImportCandidate;
  choice: Choice | undefined;
  onChange: (choice: Choice) => void;
}) {
  const { c, choice } = props;
  const id = useId();
  const policy = c.policy;
  const ready = c.status === 'ready';
  return (
    <li className="candidate panel" data-entry={c.entryName} data-status={c.status}>
      <h4>
        {ready ? (
          <label className="choice">
            <input
              type="checkbox"
              checked={choice?.include ?? true}
              onChange={(e) =>
                props.onChange({ name: choice?.name ?? c.name, include: e.target.checked })
              }
            />{' '}
            Import <strong>{showUntrusted(c.entryName)}</strong>
          </label>
        ) : (
          <strong>{showUntrusted(c.entryName)}</strong>
        )}{' '}
        <span className={`tag tag-${statusTone[c.status]}`}>{statusText[c.status]}</span>
      </h4>
      {ready && (
        <div className="field">
          <label htmlFor={`${id}-name`}>Name in Warden</label>
          <input
            id={`${id}-name`}
            value={choice?.name ?? c.name}
            onChange={(e) =>
              props.onChange({ include: choice?.include ?? true, name: e.target.value })
            }
          />
        </div>
      )}
      {c.commandLine && (
        <p>
          Command: <code className="command-line">{showUntrusted(c.commandLine)}</code>
        </p>
      )}
      {c.warnings.map((w) => (
        <p key={w.kind + w.message} className="notice notice-warn" data-warning={w.kind}>
          Warning: {showUntrusted(w.message)}
        </p>
      ))}
      {policy && (
        <dl className="proposal">
          <dt>Isolation</dt>
          <dd>
            {policy.isolation === 'sandbox' ? (
              <span className="badge badge-sandboxed">sandboxed</span>
            ) : (
              <span className="badge badge-off">Not sandboxed</span>
            )}
          </dd>
          <dt>Starting point</dt>
          <dd>{c.presets.join(', ') || 'none'}</dd>
          <dt>Files</dt>
          <dd>
            {c.roots.length === 0 ? (
              'none'
            ) : (
              <ul>
                {c.roots.map((r) => (
                  <li key={r.path}>
                    <code>{showUntrusted(r.path)}</code> (
                    {r.access === 'write' ? 'read and write' : 'read-only'}): {r.why}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Network</dt>
          <dd>
            {policy.network.mode}
            {policy.network.allow.length > 0 && `: ${policy.network.allow.join(', ')}`}
            {policy.network.deny.length > 0 && `; denied ${policy.network.deny.join(', ')}`}
          </dd>
          {c.env.length > 0 && (
            <>
              <dt>Environment</dt>
              <dd>
                <ul>
                  {c.env.map((e) => (
                    <li key={e.key} data-env-kind={e.kind}>
                      <code>{e.key}</code>: {e.shown}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
          {policy.tools.approval.length > 0 && (
            <>
              <dt>Asks before</dt>
              <dd>{policy.tools.approval.join(', ')}</dd>
            </>
          )}
        </dl>
      )}
      {c.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </li>
  );
}

const statusTone: Record<ImportCandidate['status'], string> = {
  ready: 'ok',
  imported: 'info',
  remote: 'info',
  invalid: 'error',
  'through-warden': 'info',
};

const statusText: Record<ImportCandidate['status'], string> = {
  ready: 'ready to import',
  imported: 'already imported',
  remote: 'remote — not imported',
  invalid: 'cannot be imported',
  'through-warden': 'already through Warden',
};

export function ImportScreen(props: { api: ClientsApi; initialClient?: ClientId }) {
  const id = useId();
  const [client, setClient] = useState<ClientId>(props.initialClient ?? 'claude-desktop');
  const [path, setPath] = useState('');
  const [previews, setPreviews] = useState<ImportPreview[] | undefined>();
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [results, setResults] = useState<ImportResult[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = { client, ...(path.trim() ? { path: path.trim() } : {}) };

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(callErrorText(e));
    } finally {
      setBusy(false);
    }
  };
  const preview = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      setResults(undefined);
      setChoices({});
      setPreviews(await props.api['clients.importPreview'](input));
    });
  };
  const confirm = () =>
    void run(async () => {
      const list = Object.entries(choices).map(([cid, ch]) => ({
        id: cid,
        include: ch.include,
        name: ch.name,
      }));
      setResults(await props.api['clients.import']({ ...input, choices: list }));
      setPreviews(await props.api['clients.importPreview'](input));
    });
  const ready = (previews ?? []).flatMap((p) => p.candidates).filter((c) => c.status === 'ready');
  const chosen = ready.filter((c) => choices[c.id]?.include ?? true).length;

  return (
    <section className="panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Import from an AI client</h2>
      <form onSubmit={preview} className="import-form">
        <div className="field">
          <label htmlFor={`${id}-client`}>Client</label>
          <ClientSelect id={`${id}-client`} value={client} onChange={setClient} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-path`}>
            Config file (optional; default: the client&apos;s usual place)
          </label>
          <input id={`${id}-path`} value={path} onChange={(e) => setPath(e.target.value)} />
        </div>
        <div className="actions">
          <button type="submit" disabled={busy}>
            Preview
          </button>
        </div>
      </form>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {previews?.map((p) => (
        <div key={p.file} className="import-preview" data-file={p.file}>
          <h3>
            {p.label}: <code>{p.file}</code>
          </h3>
          <p className="muted">Secrets: {p.secretStore}</p>
          <ul className="candidates">
            {p.candidates.map((c) => (
              <CandidateCard
                key={c.id}
                c={c}
                choice={choices[c.id]}
                onChange={(ch) => setChoices((all) => ({ ...all, [c.id]: ch }))}
              />
            ))}
          </ul>
        </div>
      ))}
      {previews && ready.length === 0 && (
        <p className="muted" data-nothing-to-import>
          Nothing to import here: every server listed is already in Warden, remote, or not runnable
          as written.
        </p>
      )}
      {previews && ready.length > 0 && (
        <div className="actions import-actions">
          <p className="muted">Nothing is imported or started until you confirm.</p>
          <button
            type="button"
            className="primary"
            disabled={busy || chosen === 0}
            onClick={confirm}
          >
            {chosen === 0 ? 'Import' : `Import ${chosen} server${chosen === 1 ? '' : 's'}`}
          </button>
          {chosen === 0 && <span className="hint">Tick at least one server to import.</span>}
        </div>
      )}
      {results && (
        <div className="notice" role="status">
          {results.flatMap((r) => r.imported).length === 0 && <p>Nothing was imported.</p>}
          {results.flatMap((r) =>
            r.imported.map((i) => (
              <p key={r.file + i.id}>Imported “{i.name}” (sandboxed, not started).</p>
            )),
          )}
          {results.flatMap((r) => r.notes.map((n) => <p key={n}>{n}</p>))}
        </div>
      )}
    </section>
  );
}
