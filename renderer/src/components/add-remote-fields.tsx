/**
 * The URL mode of "Add server": the remote server's URL, its transport and the headers Warden
 * sends (values go to the secret store, never to config.json). Its host is allowed on add; a
 * loopback or private address is allowed in its row.
 */
import type { ReactNode, RefObject } from 'react';

export interface RemoteFieldsProps {
  id: string;
  url: string;
  setUrl: (v: string) => void;
  transport: 'streamable-http' | 'sse';
  setTransport: (v: 'streamable-http' | 'sse') => void;
  headers: string;
  setHeaders: (v: string) => void;
  urlRef: RefObject<HTMLInputElement | null>;
  headersRef: RefObject<HTMLTextAreaElement | null>;
  invalid: { url?: boolean; headers?: boolean };
  describedBy: (field: 'url' | 'headers', hint?: string) => string | undefined;
  fieldError: (field: 'url' | 'headers') => ReactNode;
}

export function AddRemoteFields(p: RemoteFieldsProps) {
  const { id } = p;
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-url`}>URL</label>
        <input
          id={`${id}-url`}
          ref={p.urlRef}
          name="url"
          value={p.url}
          onChange={(e) => p.setUrl(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          placeholder="https://mcp.example.com/mcp"
          aria-invalid={p.invalid.url ? true : undefined}
          aria-describedby={p.describedBy('url', `${id}-url-hint`)}
        />
        <p id={`${id}-url-hint`} className="hint">
          Its host is allowed for this server; a loopback or private address must be allowed in its
          row.
        </p>
        {p.fieldError('url')}
      </div>
      <div className="field">
        <label htmlFor={`${id}-transport`}>Transport</label>
        <select
          id={`${id}-transport`}
          name="transport"
          value={p.transport}
          onChange={(e) => p.setTransport(e.target.value === 'sse' ? 'sse' : 'streamable-http')}
        >
          <option value="streamable-http">Streamable HTTP</option>
          <option value="sse">HTTP+SSE (legacy)</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-headers`}>Headers</label>
        <textarea
          id={`${id}-headers`}
          ref={p.headersRef}
          name="headers"
          rows={2}
          value={p.headers}
          onChange={(e) => p.setHeaders(e.target.value)}
          spellCheck={false}
          autoComplete="off"
          placeholder="Authorization: Bearer …"
          aria-invalid={p.invalid.headers ? true : undefined}
          aria-describedby={p.describedBy('headers', `${id}-headers-hint`)}
        />
        <p id={`${id}-headers-hint`} className="hint">
          One &quot;Name: value&quot; per line. Values are kept in the secret store and never shown
          again.
        </p>
        {p.fieldError('headers')}
      </div>
    </>
  );
}
