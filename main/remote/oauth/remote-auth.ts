/**
 * Which remote servers sign in with OAuth, and the provider their upstream sessions use: the
 * gateway's provider never opens a browser; it sends the stored token, refreshes it through the
 * session's own (policy-guarded) fetch, one process at a time (`lockDir`), and fails with "sign
 * in again" when it must.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../../secrets/secret-store';
import { type OAuthTarget, WardenOAuthProvider } from './warden-oauth-provider';

/** What a server must have for OAuth: a remote URL and an `oauth` section. */
export interface OAuthCapableServer {
  name: string;
  remote?: { url: string; oauth?: { scopes?: string[]; clientName?: string } };
}

/** The sign-in target of `server`, or undefined when it does not use OAuth. */
export function oauthTargetOf(server: OAuthCapableServer): OAuthTarget | undefined {
  const { remote } = server;
  if (!remote?.oauth) return undefined;
  return {
    serverName: server.name,
    url: remote.url,
    ...(remote.oauth.scopes ? { scopes: remote.oauth.scopes } : {}),
    ...(remote.oauth.clientName ? { clientName: remote.oauth.clientName } : {}),
  };
}

/** The provider for one upstream session of `server`, or undefined when it does not sign in. */
export function remoteAuthProvider(
  server: OAuthCapableServer,
  deps: { store: SecretStore; fetchFn?: FetchLike; lockDir?: string },
): OAuthClientProvider | undefined {
  const target = oauthTargetOf(server);
  return target ? new WardenOAuthProvider(target, deps) : undefined;
}
