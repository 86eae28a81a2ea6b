/**
 * The URL mode of "Add server": the remote server's URL, its transport and the headers Warden
 * sends (values go to the secret store, never to config.json). Its host is allowed on add; a
 * loopback or private address is allowed in its row.
 */
import type { RefObject } from 'react';
import { TextFields } from './text-field';

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
  errors: { url?: string | undefined; headers?: string | undefined };
}

const URL_EXAMPLE = 'https://mcp.example.com/mcp';
const URL_HINT =
  'Its host is allowed for this server; a loopback or private address must be allowed in its row.';
const HEADERS_HINT =
  'One "Name: value" per line. Values are kept in the secret store and never shown again.';

export function AddRemoteFields(p: RemoteFieldsProps) {
  const { id } = p;
  const HEADERS = {
    rows: 2,
    placeholder: 'Authorization: Bearer …',
    hint: HEADERS_HINT,
    areaRef: p.headersRef,
  };
  const errorOf = (field: string) => {
    const error = p.errors[field as 'url' | 'headers'];
    return error ? { error } : {};
  };
  return (
    <>
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
      <TextFields
        id={id}
        errorOf={errorOf}
        rows={[
          [
            'url',
            'URL',
            p.url,
            p.setUrl,
            { placeholder: URL_EXAMPLE, hint: URL_HINT, inputRef: p.urlRef },
          ],
          ['headers', 'Headers', p.headers, p.setHeaders, HEADERS],
        ]}
      />
    </>
  );
}
