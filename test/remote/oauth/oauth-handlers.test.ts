/**
 * The core's OAuth operations over the fixture: a sign-in answers with the state, never a token;
 * a server without OAuth or an unknown one is refused with a remedy; sign-out forgets.
 */
import { describe, expect, it } from 'vitest';
import { createOAuthHandlers } from '../../../main/remote/oauth/oauth-handlers';
import { oauthVault } from '../../../main/remote/oauth/oauth-vault';
import { followToLoopback, oauthEach } from './oauth-setup';

const t = oauthEach('warden-oauth-ops-');

function handlers() {
  const servers = new Map([
    [
      'notes',
      { name: 'notes', remote: { url: t.fixture.mcpUrl, oauth: { clientName: 'Warden test' } } },
    ],
    ['plain', { name: 'plain', remote: { url: t.fixture.mcpUrl } }],
  ]);
  return createOAuthHandlers({
    getServer: (name) => servers.get(name),
    secretStore: t.store,
    openBrowser: async (url) => void (await followToLoopback(url)),
  });
}

describe('OAuth contract operations', () => {
  it('signs in, reports the state without the token, and signs out', async () => {
    const h = handlers();
    expect(await h['servers.oauthStatus']({ name: 'notes' })).toEqual({
      ok: true,
      value: { kind: 'signed-out' },
    });
    const reply = await h['servers.signIn']({ name: 'notes' });
    expect(reply).toMatchObject({ ok: true, value: { kind: 'signed-in' } });
    const { tokens } = await oauthVault(t.store, 'notes').read();
    expect(JSON.stringify(reply)).not.toContain(tokens!.access_token);
    expect(JSON.stringify(reply)).not.toContain(tokens!.refresh_token);

    expect(await h['servers.signOut']({ name: 'notes' })).toEqual({
      ok: true,
      value: { signedOut: true },
    });
    expect(await h['servers.oauthStatus']({ name: 'notes' })).toMatchObject({
      value: { kind: 'signed-out' },
    });
  });

  it('refuses a server without OAuth and an unknown one', async () => {
    const h = handlers();
    expect(await h['servers.signIn']({ name: 'plain' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
    expect(await h['servers.oauthStatus']({ name: 'plain' })).toEqual({
      ok: true,
      value: { kind: 'not-required' },
    });
    expect(await h['servers.signIn']({ name: 'nobody' })).toMatchObject({
      ok: false,
      error: { kind: 'not-found' },
    });
    expect(t.fixture.stats.registrations).toBe(0);
  });

  it('a sign-in the authorization server cannot complete comes back as an error with a remedy', async () => {
    await t.fixture.close();
    const reply = await handlers()['servers.signIn']({ name: 'notes' });
    expect(reply).toMatchObject({ ok: false, error: { kind: 'unauthorized' } });
    expect(reply.ok ? '' : reply.error.remedy).toMatch(/sign in again/);
  });
});
