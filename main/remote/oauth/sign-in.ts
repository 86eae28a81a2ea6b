/**
 * `sign-in` and `sign-out` for a remote server, and the state the UI and `servers show` read.
 * A sign-in listens on a loopback port, lets the SDK's `auth()` discover, register and build the
 * PKCE authorization URL, hands that URL to the injected browser opener, waits for the one
 * callback, and trades the code for tokens, which land in the secret store.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../../secrets/secret-store';
import { listenForRedirect } from './loopback-redirect';
import { OAuthFlowError, findOAuthFlowError, signInRemedy } from './oauth-errors';
import { oauthVault, withoutTokens } from './oauth-vault';
import { type OAuthTarget, WardenOAuthProvider } from './warden-oauth-provider';

export interface SignInDeps {
  store: SecretStore;
  /** Opens the authorization URL in the system browser (and may print it). */
  openBrowser(url: URL): Promise<void>;
  fetchFn?: FetchLike;
  now?: () => number;
  timeoutMs?: number;
  /** The state folder's `run`: changes to the stored sign-in are locked across processes. */
  lockDir?: string;
}

/** Where a server's sign-in stands, for the UI's "sign in again" badge and `servers show`. */
export type OAuthStatus =
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; expiresAt?: number }
  | { kind: 'sign-in-required'; reason: string; remedy: string };

/** The messages of `error` and its causes ("fetch failed" alone says little), bounded. */
function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e !== undefined && out.length < 4; e = (e as { cause?: unknown }).cause) {
    const text = e instanceof Error ? e.message : JSON.stringify(e);
    if (!out.includes(text)) out.push(text);
    if (!(e instanceof Error)) break;
  }
  return out.join(': ').slice(0, 1000);
}

function failed(target: OAuthTarget, error: unknown): OAuthFlowError {
  return (
    findOAuthFlowError(error) ??
    new OAuthFlowError({
      kind: 'sign-in-failed',
      message: `${target.serverName}: sign-in failed: ${messages(error)}`,
      remedy:
        "check the server's URL, that its authorization server is reachable and that the server's network policy allows it, then sign in again",
    })
  );
}

/** Signs in through the browser; resolves once the tokens are stored. */
export async function signIn(target: OAuthTarget, deps: SignInDeps): Promise<OAuthStatus> {
  const redirect = await listenForRedirect({ timeoutMs: deps.timeoutMs });
  try {
    const provider = new WardenOAuthProvider(target, {
      store: deps.store,
      now: deps.now,
      fetchFn: deps.fetchFn,
      ...(deps.lockDir === undefined ? {} : { lockDir: deps.lockDir }),
      interactive: {
        redirectUrl: redirect.url,
        state: redirect.state,
        openAuthorizationUrl: (url) => deps.openBrowser(url),
      },
    });
    // A sign-in asked for is a fresh one: the registration is kept, the old tokens are not.
    await provider.vault.update(withoutTokens);
    const scope = target.scopes?.length ? target.scopes.join(' ') : undefined;
    const options = { serverUrl: target.url, fetchFn: deps.fetchFn, scope };
    if ((await auth(provider, options)) === 'REDIRECT') {
      const authorizationCode = await redirect.code;
      await auth(provider, { ...options, authorizationCode });
    }
    return await oauthStatus(deps.store, target.serverName);
  } catch (error) {
    throw failed(target, error);
  } finally {
    await redirect.close();
  }
}

/**
 * Forgets the tokens and the registration; true when there was a sign-in to forget. With
 * `lockDir`, under the record's lock, so a refresh another process is storing does not bring
 * them back.
 */
export async function signOut(
  store: SecretStore,
  serverName: string,
  lockDir?: string,
): Promise<boolean> {
  return oauthVault(store, serverName, lockDir).clear();
}

/** The state of a server's sign-in, read from the secret store. */
export async function oauthStatus(store: SecretStore, serverName: string): Promise<OAuthStatus> {
  const record = await oauthVault(store, serverName).read();
  if (record.signInRequired !== undefined) {
    return {
      kind: 'sign-in-required',
      reason: record.signInRequired,
      remedy: signInRemedy(serverName),
    };
  }
  if (!record.tokens) return { kind: 'signed-out' };
  return record.expiresAt !== undefined
    ? { kind: 'signed-in', expiresAt: record.expiresAt }
    : { kind: 'signed-in' };
}
