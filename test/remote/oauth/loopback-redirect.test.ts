/**
 * The sign-in's loopback listener: it is bound to 127.0.0.1 only, accepts exactly the one
 * callback that carries its state, refuses everything else while it waits, and is gone after.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listenForRedirect } from '../../../main/remote/oauth/loopback-redirect';
import { findOAuthFlowError } from '../../../main/remote/oauth/oauth-errors';
import {
  unsafeAuthorizationUrl,
  WardenOAuthProvider,
} from '../../../main/remote/oauth/warden-oauth-provider';
import { headlessSecretStore } from '../../../main/secrets/headless-secret-store';

function callback(base: string, params: Record<string, string>, path = '/callback'): URL {
  const url = new URL(path, base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

describe('loopback redirect listener', () => {
  it('refuses a wrong path, a wrong method and a forged state, accepts the expected callback once, then closes', async () => {
    const redirect = await listenForRedirect();
    try {
      expect(new URL(redirect.url).hostname).toBe('127.0.0.1');
      const base = redirect.url;
      expect(
        (await fetch(callback(base, { code: 'c', state: redirect.state }, '/other'))).status,
      ).toBe(404);
      expect(
        (await fetch(callback(base, { code: 'c', state: redirect.state }), { method: 'POST' }))
          .status,
      ).toBe(404);
      expect((await fetch(callback(base, { code: 'evil', state: 'guess' }))).status).toBe(400);
      expect((await fetch(callback(base, { code: 'evil' }))).status).toBe(400);
      // A state of the right length but not this one.
      const near = redirect.state.slice(0, -1) + (redirect.state.endsWith('A') ? 'B' : 'A');
      expect((await fetch(callback(base, { code: 'evil', state: near }))).status).toBe(400);

      const ok = await fetch(callback(base, { code: 'the-code', state: redirect.state }));
      expect(ok.status).toBe(200);
      expect(await redirect.code).toBe('the-code');

      // Nothing listens any more: a second callback, even a genuine one, cannot land.
      await expect(
        fetch(callback(base, { code: 'again', state: redirect.state })),
      ).rejects.toThrow();
    } finally {
      await redirect.close();
    }
  });

  it('does not answer on other interfaces than loopback 127.0.0.1', async () => {
    const redirect = await listenForRedirect();
    try {
      const port = Number(new URL(redirect.url).port);
      const reached = await new Promise<boolean>((resolve) => {
        const req = request({ host: '::1', port, path: '/callback', family: 6 }, () =>
          resolve(true),
        );
        req.on('error', () => resolve(false));
        req.end();
      });
      expect(reached).toBe(false);
    } finally {
      await redirect.close();
    }
  });

  it('an error from the authorization server (with the right state) ends the wait as authorization-denied', async () => {
    const redirect = await listenForRedirect();
    try {
      await fetch(callback(redirect.url, { error: 'access_denied', state: redirect.state }));
      const failure = await redirect.code.catch((error: unknown) => error);
      expect(findOAuthFlowError(failure)?.kind).toBe('authorization-denied');
    } finally {
      await redirect.close();
    }
  });
});

describe('authorization URL guard', () => {
  it('sends the browser only to https or loopback http, without credentials', () => {
    expect(unsafeAuthorizationUrl(new URL('https://auth.example.com/authorize'))).toBeUndefined();
    expect(unsafeAuthorizationUrl(new URL('http://127.0.0.1:8080/authorize'))).toBeUndefined();
    for (const bad of [
      'http://auth.example.com/authorize',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://user:pw@auth.example.com/authorize',
    ]) {
      expect(unsafeAuthorizationUrl(new URL(bad)), bad).toBeDefined();
    }
  });

  it('a hostile authorization endpoint is never opened', async () => {
    const opened: URL[] = [];
    const provider = new WardenOAuthProvider(
      { serverName: 'notes', url: 'https://mcp.example.com/mcp' },
      {
        store: headlessSecretStore('/nonexistent-warden-home'),
        interactive: {
          redirectUrl: 'http://127.0.0.1:1/callback',
          state: 's',
          openAuthorizationUrl: (url) => Promise.resolve(void opened.push(url)),
        },
      },
    );
    const failure = await provider
      .redirectToAuthorization(new URL('file:///etc/passwd'))
      .catch((error: unknown) => error);
    expect(findOAuthFlowError(failure)?.kind).toBe('unsafe-url');
    expect(opened).toEqual([]);
  });
});
