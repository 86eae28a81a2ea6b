/**
 * The MCP client transport to a remote server: Streamable HTTP or the legacy HTTP+SSE transport,
 * as the server's `remote.transport` says. The server's headers are sent to its own origin only
 * (never to an authorization server or a redirect target elsewhere), and an OAuth provider, when
 * given, goes to the SDK transport as it is.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RemoteSpec } from '../../app/policy/policy-schema';

export interface RemoteTransportOptions {
  /** Header values by name, resolved from the secret store. */
  headers: Readonly<Record<string, string>>;
  authProvider?: OAuthClientProvider;
  /** The fetch to use (Warden's guarded one); the global fetch otherwise. */
  fetch?: FetchLike;
}

/** `base` with `headers` added to each request bound for `origin`, and to no other. */
export function withOriginHeaders(
  base: FetchLike,
  origin: string,
  headers: Readonly<Record<string, string>>,
): FetchLike {
  if (Object.keys(headers).length === 0) return base;
  return (url, init) => {
    if (new URL(url).origin !== origin) return base(url, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return base(url, { ...init, headers: merged });
  };
}

/** The client transport to `remote`; not started. */
export function createRemoteTransport(
  remote: Pick<RemoteSpec, 'url' | 'transport'>,
  options: RemoteTransportOptions,
): Transport {
  const url = new URL(remote.url);
  const fetch = withOriginHeaders(options.fetch ?? globalThis.fetch, url.origin, options.headers);
  const common = {
    fetch,
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
  };
  return remote.transport === 'sse'
    ? new SSEClientTransport(url, common)
    : new StreamableHTTPClientTransport(url, common);
}
