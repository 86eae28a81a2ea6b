/**
 * What a remote server's OAuth sign-in leaves behind (the client registration, the tokens with
 * their expiry, the discovered endpoints, and whether a person must sign in again), kept as one
 * JSON record in the secret store under `oauth:NAME`: never in config.json, never in the log.
 */
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretStore } from '../../secrets/secret-store';
import { OAuthFlowError } from './oauth-errors';
import { takeOAuthLock } from './oauth-lock';

export interface OAuthRecord {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** Epoch milliseconds when the access token expires, when the server said. */
  expiresAt?: number;
  /** Epoch milliseconds from which the access token is refreshed before use. */
  refreshAt?: number;
  discovery?: OAuthDiscoveryState;
  /** Why a person must sign in again (the last refresh was refused), until they do. */
  signInRequired?: string;
}

/** The secret store reference of a server's record. */
export function oauthSecretRef(serverName: string): string {
  return `oauth:${serverName}`;
}

/** How long before expiry a token is refreshed: a fifth of its lifetime, at most a minute. */
export function refreshMargin(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 5);
}

export interface OAuthVault {
  read(): Promise<OAuthRecord>;
  /**
   * Applies `change` to the record; changes are serialized within this process and, given a lock
   * folder, across this user's Warden processes.
   */
  update(change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord>;
  /** Removes the record; true when there was one. */
  clear(): Promise<boolean>;
}

function storeError(error: { message: string; remedy: string }): OAuthFlowError {
  return new OAuthFlowError({ kind: 'store', message: error.message, remedy: error.remedy });
}

function parse(text: string): OAuthRecord {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value;
    }
  } catch {
    // reported below
  }
  throw new OAuthFlowError({
    kind: 'store',
    message: 'the stored sign-in is not readable',
    remedy: 'sign out and sign in again',
  });
}

/** How long a change waits for another process's change to the same record. */
export const RECORD_LOCK_WAIT_MS = 10_000;

/**
 * The vault of one server in `store`. With `lockDir` (the state folder's `run`), each change reads
 * and writes the record under a lock this user's other Warden processes take too, so that no
 * change is lost to one made beside it (a sign-out while another process stores a refresh).
 */
export function oauthVault(store: SecretStore, serverName: string, lockDir?: string): OAuthVault {
  const ref = oauthSecretRef(serverName);
  let queue: Promise<unknown> = Promise.resolve();
  const locked = async <T>(work: () => Promise<T>): Promise<T> => {
    if (lockDir === undefined) return work();
    const lock = await takeOAuthLock(lockDir, 'record', serverName, RECORD_LOCK_WAIT_MS);
    try {
      return await work();
    } finally {
      await lock.release();
    }
  };
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(
      () => locked(work),
      () => locked(work),
    );
    queue = next.catch(() => undefined);
    return next;
  };

  const read = async (): Promise<OAuthRecord> => {
    const got = await store.get(ref);
    if (!got.ok) throw storeError(got.error);
    return got.value === undefined ? {} : parse(got.value);
  };

  return {
    read,
    update: (change) =>
      serialized(async () => {
        const next = change(await read());
        const saved = await store.set(ref, JSON.stringify(next));
        if (!saved.ok) throw storeError(saved.error);
        return next;
      }),
    clear: () =>
      serialized(async () => {
        const removed = await store.delete(ref);
        if (!removed.ok) throw storeError(removed.error);
        return removed.value;
      }),
  };
}

/** The record after new tokens arrived at `now`: expiry and refresh time computed, the
 * "sign in again" state lifted. */
export function withTokens(record: OAuthRecord, tokens: OAuthTokens, now: number): OAuthRecord {
  const lifetime = tokens.expires_in !== undefined ? tokens.expires_in * 1000 : undefined;
  const { expiresAt: _e, refreshAt: _r, signInRequired: _s, ...rest } = record;
  return {
    ...rest,
    tokens,
    ...(lifetime !== undefined
      ? { expiresAt: now + lifetime, refreshAt: now + lifetime - refreshMargin(lifetime) }
      : {}),
  };
}

/** The record without its tokens. */
export function withoutTokens(record: OAuthRecord): OAuthRecord {
  const { tokens: _t, expiresAt: _e, refreshAt: _r, ...rest } = record;
  return rest;
}
