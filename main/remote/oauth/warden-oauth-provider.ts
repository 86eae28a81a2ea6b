/**
 * The MCP SDK's `OAuthClientProvider` for one remote server. The SDK's `auth()` does the protocol
 * (protected-resource and authorization-server discovery, dynamic registration, PKCE, the code
 * and refresh grants); this provider keeps what it produces in the secret store, refreshes the
 * access token shortly before it expires, and decides what a sign-in may do: during
 * `sign-in` it sends the browser to the authorization URL, while the gateway runs it never
 * opens anything and raises the "sign in again" error instead.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type OAuthDiscoveryState,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CoreLock } from '../../core/core-lock';
import type { SecretStore } from '../../secrets/secret-store';
import { OAuthFlowError, findOAuthFlowError, signInRequired } from './oauth-errors';
import { takeOAuthLock } from './oauth-lock';
import {
  type OAuthRecord,
  type OAuthVault,
  oauthVault,
  withTokens,
  withoutTokens,
} from './oauth-vault';

/** The remote server an OAuth sign-in is for. */
export interface OAuthTarget {
  serverName: string;
  /** The MCP endpoint (the protected resource). */
  url: string;
  scopes?: string[];
  clientName?: string;
}

/** What a person-driven sign-in adds: where the browser comes back, and how it is opened. */
export interface InteractiveSignIn {
  redirectUrl: string;
  state: string;
  openAuthorizationUrl(url: URL): Promise<void>;
}

export interface OAuthProviderOptions {
  store: SecretStore;
  now?: () => number;
  fetchFn?: FetchLike;
  interactive?: InteractiveSignIn;
  /**
   * Where the refresh lock of each server is kept (the state folder's `run`): other Warden
   * processes of this user (a standalone `warden connect` beside the app, say) share the sign-in,
   * and a refresh token is good for one use, so one process at a time refreshes and the others
   * take what it stored. Without it, refreshes are one at a time within this process only.
   */
  lockDir?: string;
  /** How long a refresh waits for another process's (default REFRESH_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/** How long a refresh waits for another process's refresh of the same sign-in. */
export const REFRESH_LOCK_WAIT_MS = 30_000;

/** Used as the redirect URI when no sign-in is in progress; no authorization reaches it. */
const IDLE_REDIRECT = 'http://127.0.0.1/callback';
const REFUSED = 'the authorization server refused the stored sign-in';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why `url` must not be opened in a browser, or undefined when it may: https, or http to a
 * loopback address, and no credentials in it. */
export function unsafeAuthorizationUrl(url: URL): string | undefined {
  if (url.username || url.password) return 'it carries credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return `its scheme ${url.protocol} is not https`;
}

const refreshesInFlight = new WeakMap<SecretStore, Map<string, Promise<void>>>();

export class WardenOAuthProvider implements OAuthClientProvider {
  readonly vault: OAuthVault;
  private readonly now: () => number;
  private verifier: string | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly target: OAuthTarget,
    private readonly options: OAuthProviderOptions,
  ) {
    this.vault = oauthVault(options.store, target.serverName, options.lockDir);
    this.now = options.now ?? Date.now;
  }

  get redirectUrl(): string {
    return this.options.interactive?.redirectUrl ?? IDLE_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.target.clientName ?? 'MCP Warden',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.target.scopes?.length ? { scope: this.target.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.options.interactive?.state ?? randomBytes(32).toString('base64url');
  }

  /**
   * The stored registration. Outside a sign-in there is none to make: without it there are no
   * tokens to send or refresh, and a registration made there would only be left behind at the
   * authorization server. The session gets "sign in" instead.
   */
  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { client } = await this.vault.read();
    if (client === undefined && !this.options.interactive) await this.requireSignIn();
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.vault.update((r) => ({ ...r, client }));
  }

  /** The access token to send, refreshed first when it is due. */
  async tokens(): Promise<OAuthTokens | undefined> {
    const record = await this.vault.read();
    const due =
      record.tokens?.refresh_token !== undefined &&
      record.refreshAt !== undefined &&
      this.now() >= record.refreshAt;
    // While auth() itself runs a refresh it asks for the stored tokens: give them as they are.
    if (!due || this.refreshing) return record.tokens;
    // One refresh per server at a time in this process: a refresh token is good for one use.
    let flights = refreshesInFlight.get(this.options.store);
    if (!flights)
      refreshesInFlight.set(this.options.store, (flights = new Map<string, Promise<void>>()));
    let flight = flights.get(this.target.serverName);
    if (!flight) {
      flight = this.refreshing = this.refresh().finally(() => {
        this.refreshing = undefined;
        flights.delete(this.target.serverName);
      });
      flights.set(this.target.serverName, flight);
    }
    await flight;
    return (await this.vault.read()).tokens;
  }

  /**
   * Stores new tokens. Outside a sign-in, tokens arrive from a refresh: if the sign-in was removed
   * meanwhile (signed out, or the server removed, perhaps by another process), they are dropped
   * rather than stored again.
   */
  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const now = this.now();
    const signIn = this.options.interactive !== undefined;
    await this.vault.update((r) => (signIn || r.client ? withTokens(r, tokens, now) : r));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const unsafe = unsafeAuthorizationUrl(authorizationUrl);
    if (unsafe !== undefined) {
      throw new OAuthFlowError({
        kind: 'unsafe-url',
        message: `${this.target.serverName}: the authorization server's sign-in address was not opened: ${unsafe}`,
        remedy: "check the server's URL; its authorization server must be reached over https",
      });
    }
    if (this.options.interactive) {
      await this.options.interactive.openAuthorizationUrl(authorizationUrl);
      return;
    }
    await this.requireSignIn();
  }

  /** Notes that a person must sign in (unless a reason is noted already) and says so. */
  private async requireSignIn(): Promise<never> {
    const record = await this.vault.update((r) => ({
      ...r,
      signInRequired: r.signInRequired ?? (r.client ? 'the sign-in expired' : 'not signed in'),
    }));
    throw signInRequired(this.target.serverName, record.signInRequired ?? 'not signed in');
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) {
      throw new OAuthFlowError({
        kind: 'sign-in-failed',
        message: `${this.target.serverName}: no sign-in is in progress`,
        remedy: 'start the sign-in again',
      });
    }
    return this.verifier;
  }

  async invalidateCredentials(
    scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery',
  ): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'verifier') return;
    await this.vault.update((r): OAuthRecord => {
      switch (scope) {
        case 'discovery':
          return { ...r, discovery: undefined };
        case 'client':
          return { ...r, client: undefined };
        // The tokens (or the client) were refused: a person has to sign in again.
        case 'tokens':
          return { ...withoutTokens(r), signInRequired: REFUSED };
        case 'all':
          return { signInRequired: REFUSED };
      }
    });
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.vault.update((r) => ({ ...r, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.vault.read()).discovery;
  }

  /** Trades the refresh token for new tokens; a token still valid is kept through a passing
   * failure, a refused refresh ends in the "sign in again" error. Under the refresh lock, the
   * record is read again first: another process may have refreshed while this one waited. */
  private async refresh(): Promise<void> {
    const lock = await this.refreshLock();
    try {
      const record = await this.vault.read();
      if (record.refreshAt === undefined || this.now() < record.refreshAt) return;
      await auth(this, { serverUrl: this.target.url, fetchFn: this.options.fetchFn });
    } catch (error) {
      const flow = findOAuthFlowError(error);
      if (flow && flow.kind !== 'store') throw flow;
      const record = await this.vault.read();
      if (record.tokens && record.expiresAt !== undefined && this.now() < record.expiresAt) return;
      throw new OAuthFlowError({
        kind: 'refresh-failed',
        message: `${this.target.serverName}: the access token expired and could not be refreshed: ${error instanceof Error ? error.message : String(error)}`,
        remedy: 'check the network and the authorization server, then retry',
      });
    } finally {
      await lock?.release();
    }
  }

  /** This server's refresh lock across this user's Warden processes, once it is free. */
  private refreshLock(): Promise<CoreLock | undefined> {
    const { lockDir, lockWaitMs = REFRESH_LOCK_WAIT_MS } = this.options;
    if (lockDir === undefined) return Promise.resolve(undefined);
    return takeOAuthLock(lockDir, 'refresh', this.target.serverName, lockWaitMs);
  }
}
