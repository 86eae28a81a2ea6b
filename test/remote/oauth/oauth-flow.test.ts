/**
 * The whole OAuth sign-in against the local authorization server fixture, headless: the
 * "browser" follows the authorization URL with fetch and lets the fixture redirect it to the
 * loopback listener. Then the gateway-side provider calls the protected MCP server with the
 * stored token, refreshes it before it expires, and turns a revoked refresh token into the
 * "sign in again" error.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { OAuthFlowError, findOAuthFlowError } from '../../../main/remote/oauth/oauth-errors';
import { oauthLockPath } from '../../../main/remote/oauth/oauth-lock';
import { oauthVault } from '../../../main/remote/oauth/oauth-vault';
import { headlessSecretStore } from '../../../main/secrets/headless-secret-store';
import { oauthStatus, signIn, signOut } from '../../../main/remote/oauth/sign-in';
import type { SecretStore } from '../../../main/secrets/secret-store';
import { WardenOAuthProvider } from '../../../main/remote/oauth/warden-oauth-provider';
import { followToLoopback, oauthEach } from './oauth-setup';

const t = oauthEach('warden-oauth-');

/** A browser that records what it opened; `rewrite` lets a test tamper with the callback. */
function fetchBrowser(seen: URL[], rewrite?: (callback: URL) => URL) {
  return async (url: URL): Promise<void> => {
    seen.push(url);
    await followToLoopback(url, rewrite);
  };
}

async function callWhoami(provider: WardenOAuthProvider): Promise<string> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(t.fixture.mcpUrl), { authProvider: provider }),
  );
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return (result.content as { text: string }[])[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

const target = () => ({ serverName: 'notes', url: t.fixture.mcpUrl });

/** A request body as text (the SDK sends form bodies as URLSearchParams). */
const bodyText = (body: RequestInit['body']): string =>
  typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : '';

describe('OAuth sign-in for a remote server', () => {
  it('discovers, registers, signs in with PKCE, stores the tokens only in the secret store, and calls with them', async () => {
    const opened: URL[] = [];
    const status = await signIn(target(), { store: t.store, openBrowser: fetchBrowser(opened) });
    expect(status.kind).toBe('signed-in');

    // One registration, one authorization whose PKCE the fixture checked itself.
    expect(t.fixture.stats).toMatchObject({ registrations: 1, authorizations: 1, pkceVerified: 1 });
    const authorization = opened[0]!;
    expect(authorization.origin).toBe(t.fixture.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(t.fixture.mcpUrl);
    expect(authorization.searchParams.get('redirect_uri')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );

    const record = await oauthVault(t.store, 'notes').read();
    const access = record.tokens!.access_token;
    expect(record.tokens!.refresh_token).toBeTruthy();
    expect(record.client?.client_id).toBeTruthy();
    expect(record.discovery?.authorizationServerUrl).toContain(t.fixture.issuer);
    // In the secret store's file, and nowhere else under the Warden home.
    expect(await readFile(join(t.home, 'secrets.json'), 'utf8')).toContain(access);

    const gateway = new WardenOAuthProvider(target(), { store: t.store });
    expect(await callWhoami(gateway)).toBe(`client ${record.client!.client_id}`);
    expect(t.fixture.stats.bearers.at(-1)).toBe(access);
    // No second registration nor sign-in for the call.
    expect(t.fixture.stats).toMatchObject({ registrations: 1, authorizations: 1 });
  });

  it('refreshes the access token before it expires and calls with the new one', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const before = await oauthVault(t.store, 'notes').read();
    expect(before.refreshAt).toBeLessThan(before.expiresAt!);

    // A minute-ish before expiry, by the provider's clock: still valid, but due.
    const gateway = new WardenOAuthProvider(target(), {
      store: t.store,
      now: () => before.refreshAt! + 1,
    });
    await callWhoami(gateway);
    expect(t.fixture.stats.refreshGrants).toBe(1);
    const after = await oauthVault(t.store, 'notes').read();
    expect(after.tokens!.access_token).not.toBe(before.tokens!.access_token);
    expect(after.tokens!.refresh_token).not.toBe(before.tokens!.refresh_token);
    expect(t.fixture.stats.bearers.every((b) => b === after.tokens!.access_token)).toBe(true);
    expect(t.fixture.stats.authorizations).toBe(1);
  });

  it('a revoked refresh token ends in the "sign in again" error, never a browser', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    t.fixture.revokeRefreshTokens();

    const gateway = new WardenOAuthProvider(target(), {
      store: t.store,
      now: () => refreshAt! + 1,
    });
    const failure = await callWhoami(gateway).then(
      () => undefined,
      (error: unknown) => error,
    );
    const flow = findOAuthFlowError(failure);
    expect(flow).toBeInstanceOf(OAuthFlowError);
    expect(flow?.kind).toBe('sign-in-required');
    expect(flow?.remedy).toBe('run: warden servers sign-in notes');
    expect(t.fixture.stats.authorizations).toBe(1);

    const status = await oauthStatus(t.store, 'notes');
    expect(status).toMatchObject({
      kind: 'sign-in-required',
      remedy: 'run: warden servers sign-in notes',
    });
    expect((await oauthVault(t.store, 'notes').read()).tokens).toBeUndefined();

    // Signing in again lifts the state.
    expect((await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) })).kind).toBe(
      'signed-in',
    );
  });

  it('without a sign-in the gateway gets "sign in again" and opens nothing', async () => {
    const gateway = new WardenOAuthProvider(target(), { store: t.store });
    const flow = findOAuthFlowError(await callWhoami(gateway).catch((error: unknown) => error));
    expect(flow?.kind).toBe('sign-in-required');
    expect(flow?.message).toMatch(/not signed in/);
    expect(t.fixture.stats.authorizations).toBe(0);
    // Nothing is registered at the authorization server on the way: only a sign-in registers.
    expect(t.fixture.stats.registrations).toBe(0);
  });

  it('after a sign-out a session says so and registers nothing; a sign-in then works', async () => {
    const browser = { store: t.store, openBrowser: fetchBrowser([]) };
    await signIn(target(), browser);
    await signOut(t.store, 'notes');
    const gateway = new WardenOAuthProvider(target(), { store: t.store });
    const flow = findOAuthFlowError(await callWhoami(gateway).catch((error: unknown) => error));
    expect(flow?.kind).toBe('sign-in-required');
    expect(flow?.message).toMatch(/not signed in/);
    expect(t.fixture.stats.registrations).toBe(1);
    expect((await signIn(target(), browser)).kind).toBe('signed-in');
  });

  it('a callback with a forged state is refused; the genuine one still completes the sign-in', async () => {
    const refused: number[] = [];
    const browser = async (url: URL): Promise<void> => {
      const res = await fetch(url, { redirect: 'manual' });
      const genuine = new URL(res.headers.get('location')!);
      const forged = new URL(genuine);
      forged.searchParams.set('state', 'forged');
      forged.searchParams.set('code', 'attacker-code');
      refused.push((await fetch(forged)).status);
      await fetch(genuine);
    };
    await signIn(target(), { store: t.store, openBrowser: browser });
    expect(refused).toEqual([400]);
    expect(t.fixture.stats.pkceVerified).toBe(1);
  });

  it('a forged state alone never completes: the sign-in ends with a timeout and stores no token', async () => {
    const browser = fetchBrowser([], (callback) => {
      callback.searchParams.set('state', 'forged');
      return callback;
    });
    const failure = await signIn(target(), {
      store: t.store,
      openBrowser: browser,
      timeoutMs: 500,
    }).catch((error: unknown) => error);
    expect(findOAuthFlowError(failure)?.kind).toBe('timeout');
    expect((await oauthVault(t.store, 'notes').read()).tokens).toBeUndefined();
    expect(t.fixture.stats.pkceVerified).toBe(0);
  });

  it('sign-out forgets tokens and registration', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    expect(await signOut(t.store, 'notes')).toBe(true);
    expect(await oauthStatus(t.store, 'notes')).toEqual({ kind: 'signed-out' });
    expect(await readFile(join(t.home, 'secrets.json'), 'utf8')).not.toContain('notes');
  });
});

describe('refresh shared by sessions', () => {
  it('two sessions of one server due at once refresh once, and both call with the new token', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    const session = () =>
      new WardenOAuthProvider(target(), { store: t.store, now: () => refreshAt! + 1 });
    await Promise.all([callWhoami(session()), callWhoami(session())]);
    expect(t.fixture.stats.refreshGrants).toBe(1);
    const { tokens } = await oauthVault(t.store, 'notes').read();
    expect(new Set(t.fixture.stats.bearers)).toEqual(new Set([tokens!.access_token]));
  });

  it('sessions in two processes due at once refresh once, and the sign-in survives the other one', async () => {
    // Each process has its own store over the same state folder; the refresh token is good for
    // one use, so a second refresh with it is refused, and that refusal must not undo the first.
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    const inProcess = () =>
      new WardenOAuthProvider(target(), {
        store: headlessSecretStore(t.home),
        now: () => refreshAt! + 1,
        lockDir: join(t.home, 'run'),
      });
    const answers = await Promise.all([callWhoami(inProcess()), callWhoami(inProcess())]);
    expect(answers).toHaveLength(2);
    expect(t.fixture.stats.refreshGrants).toBe(1);
    const after = await oauthVault(headlessSecretStore(t.home), 'notes').read();
    expect(after.signInRequired).toBeUndefined();
    expect(new Set(t.fixture.stats.bearers)).toEqual(new Set([after.tokens!.access_token]));
  });

  const lockOf = (home: string) => oauthLockPath(join(home, 'run'), 'refresh', 'notes');

  it('a refresh lock left by a process that is gone does not stop the refresh', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    await mkdir(join(t.home, 'run'), { recursive: true, mode: 0o700 });
    // A PID above the kernel's maximum is never a live process.
    await writeFile(lockOf(t.home), `${JSON.stringify({ pid: 4_194_305, what: 'gone' })}\n`);
    const provider = new WardenOAuthProvider(target(), {
      store: t.store,
      now: () => refreshAt! + 1,
      lockDir: join(t.home, 'run'),
      lockWaitMs: 1000,
    });
    await callWhoami(provider);
    expect(t.fixture.stats.refreshGrants).toBe(1);
    await expect(readFile(lockOf(t.home), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a refresh held by a live process too long fails with what to do, and spends no token', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    await mkdir(join(t.home, 'run'), { recursive: true, mode: 0o700 });
    await writeFile(lockOf(t.home), `${JSON.stringify({ pid: process.pid, what: 'held' })}\n`);
    const provider = new WardenOAuthProvider(target(), {
      store: t.store,
      now: () => refreshAt! + 1,
      lockDir: join(t.home, 'run'),
      lockWaitMs: 300,
    });
    const error = await provider.tokens().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthFlowError);
    expect((error as OAuthFlowError).message).toMatch(/another Warden process .* refreshing/);
    expect((error as OAuthFlowError).remedy).toMatch(/retry/);
    expect(t.fixture.stats.refreshGrants).toBe(0);
    expect((await oauthVault(t.store, 'notes').read()).signInRequired).toBeUndefined();
  });

  it('a sign-out in another process while a refresh is under way is not undone by it', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const { refreshAt } = await oauthVault(t.store, 'notes').read();
    const lockDir = join(t.home, 'run');
    let signedOut = false;
    // The other process signs out just as this one's refresh reaches the token endpoint.
    const fetchFn = async (url: string | URL, init?: RequestInit) => {
      if (!signedOut && bodyText(init?.body).includes('grant_type=refresh_token')) {
        signedOut = await signOut(headlessSecretStore(t.home), 'notes', lockDir);
      }
      return fetch(url, init);
    };
    const provider = new WardenOAuthProvider(target(), {
      store: headlessSecretStore(t.home),
      now: () => refreshAt! + 1,
      lockDir,
      fetchFn,
    });
    await expect(callWhoami(provider)).rejects.toThrow();
    expect(signedOut).toBe(true);
    expect(t.fixture.stats.refreshGrants).toBe(1);
    // The refreshed tokens were dropped, not stored again after the sign-out (the session then
    // only notes that a sign-in is needed).
    const after = await oauthVault(headlessSecretStore(t.home), 'notes').read();
    expect(after.tokens).toBeUndefined();
    expect((await oauthStatus(headlessSecretStore(t.home), 'notes')).kind).not.toBe('signed-in');
  });
});

describe('the stored sign-in across processes', () => {
  /** `store` whose writes wait until `release` is called (a slow write in one process). */
  function slowWrites(store: SecretStore) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let writing!: () => void;
    const started = new Promise<void>((resolve) => (writing = resolve));
    const slow: SecretStore = {
      ...store,
      get: (ref) => store.get(ref),
      delete: (ref) => store.delete(ref),
      set: async (ref, value) => {
        writing();
        await gate;
        return store.set(ref, value);
      },
    };
    return { slow, started, release };
  }

  it('a change and a sign-out in two processes do not interleave: the sign-out is not lost', async () => {
    await signIn(target(), { store: t.store, openBrowser: fetchBrowser([]) });
    const lockDir = join(t.home, 'run');
    const one = slowWrites(headlessSecretStore(t.home));
    const change = oauthVault(one.slow, 'notes', lockDir).update((r) => ({
      ...r,
      signInRequired: 'marker',
    }));
    await one.started;
    // The other process signs out while the first one's write is still on its way.
    const cleared = oauthVault(headlessSecretStore(t.home), 'notes', lockDir).clear();
    await new Promise((resolve) => setTimeout(resolve, 100));
    one.release();
    await change;
    expect(await cleared).toBe(true);
    expect(await oauthStatus(headlessSecretStore(t.home), 'notes')).toEqual({ kind: 'signed-out' });
  });
});
