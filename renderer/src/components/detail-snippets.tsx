/**
 * How to point an AI client at this server: the stdio command (`warden connect NAME`), the HTTP
 * URL, and each supported client's config entry, each with a Copy button. A client's HTTP entry
 * gets its bearer token from the core only when it is copied, and only the clipboard gets it.
 */
import { useEffect, useId, useState } from 'react';
import type { ClientId } from '../../../app/clients/client-formats';
import { type ConnectInfo, SNIPPET_TOKEN } from '../../../app/contract/server-detail';
import { showUntrusted } from '../../../app/text/untrusted-text';
import { useRoot, useWardenApi } from '../store/store-context';
import { CopyButton } from './copy-button';
import { callErrorText } from './import-screen';

export function DetailSnippets(props: { name: string }) {
  const api = useWardenApi();
  const id = useId();
  const [info, setInfo] = useState<ConnectInfo | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [client, setClient] = useState<ClientId>('claude-desktop');
  const [transport, setTransport] = useState<'stdio' | 'http'>('stdio');
  const navigate = useRoot((s) => s.navigate);
  useEffect(() => {
    api['servers.connectInfo']({ name: props.name }).then(setInfo, (e: unknown) =>
      setError(callErrorText(e)),
    );
  }, [api, props.name]);
  if (error) return <p className="notice notice-error">{error}</p>;
  if (!info) return <p className="muted">Loading…</p>;
  const tokenFor = async (client: ClientId) =>
    (await api['servers.snippetToken']({ client })).token;
  const clients = [...new Map(info.snippets.map((s) => [s.client, s.label])).entries()];
  const forClient = info.snippets.filter((s) => s.client === client);
  const snippet = forClient.find((s) => s.transport === transport) ?? forClient[0];
  return (
    <div className="snippets">
      <dl className="snippet-lines">
        <dt>stdio command</dt>
        <dd>
          {/* One line, cut short where it is long: the whole of it on hover. */}
          <code
            className="snippet-code"
            data-snippet="stdio"
            title={showUntrusted(info.commandLine)}
          >
            {showUntrusted(info.commandLine)}
          </code>
          <CopyButton text={info.commandLine} label="stdio command" />
        </dd>
        {info.http && (
          <>
            <dt>HTTP URL</dt>
            <dd>
              <code
                className="snippet-code"
                data-snippet="url"
                title={showUntrusted(info.http.url)}
              >
                {showUntrusted(info.http.url)}
              </code>
              <CopyButton text={info.http.url} label="HTTP URL" />
            </dd>
          </>
        )}
      </dl>
      {!info.http && (
        <p className="hint">
          The HTTP front door is not running here; clients that take a URL can use the stdio
          command.
        </p>
      )}
      <div className="snippet-pick">
        <label htmlFor={`${id}-client`}>Config entry for</label>
        <select
          id={`${id}-client`}
          value={client}
          onChange={(e) => setClient(e.target.value as ClientId)}
        >
          {clients.map(([c, label]) => (
            <option key={c} value={c}>
              {label}
            </option>
          ))}
        </select>
        {forClient.length > 1 && (
          <span className="segmented" role="radiogroup" aria-label="Transport">
            {forClient.map((s) => (
              <label key={s.transport} className="choice">
                <input
                  type="radio"
                  name={`${id}-transport`}
                  checked={snippet?.transport === s.transport}
                  onChange={() => setTransport(s.transport)}
                />
                {s.transport === 'stdio' ? 'stdio' : 'HTTP'}
              </label>
            ))}
          </span>
        )}
        {snippet && (
          <CopyButton
            text={
              snippet.transport === 'http'
                ? async () => snippet.json.split(SNIPPET_TOKEN).join(await tokenFor(snippet.client))
                : snippet.json
            }
            label={`${snippet.label} config entry`}
          />
        )}
        {snippet && (
          <button
            type="button"
            className="small"
            onClick={() => navigate({ kind: 'clients', client })}
          >
            Connect {snippet.label}…
          </button>
        )}
      </div>
      {snippet && (
        <pre
          className="snippet-json"
          data-snippet-json={`${snippet.client}:${snippet.transport}`}
          aria-label={`${snippet.label} config entry`}
        >
          {showUntrusted(snippet.json, { multiline: true })}
        </pre>
      )}
      {snippet?.transport === 'http' && (
        <p className="hint" data-token-hint>
          Copy puts a gateway token of its own for {snippet.label} in the entry;{' '}
          <code>warden clients revoke {snippet.client}</code> revokes it.
        </p>
      )}
    </div>
  );
}
