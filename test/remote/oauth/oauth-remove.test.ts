/** Removing a remote server forgets its OAuth sign-in: a later server of that name starts
 * signed out. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../app/policy/defaults';
import { createCore } from '../../../main/core/core';
import { oauthVault } from '../../../main/remote/oauth/oauth-vault';
import { headlessSecretStore } from '../../../main/secrets/headless-secret-store';
import { tempDirEach } from '../../helpers/temp-dir';

let home = '';
tempDirEach('warden-oauth-remove-', (d) => (home = d));

describe('servers.remove of a remote server that signs in', () => {
  it('deletes its tokens and registration from the secret store', async () => {
    const core = await createCore({ wardenHome: home, probeHost: false });
    try {
      const added = await core.handle('servers.add', {
        name: 'notes',
        remote: {
          url: 'https://mcp.example.com/mcp',
          transport: 'streamable-http',
          headers: [],
          oauth: {},
        },
        policy: defaultPolicy(),
      });
      expect(added.ok).toBe(true);
      await oauthVault(headlessSecretStore(home), 'notes').update((r) => ({
        ...r,
        client: { client_id: 'client-5e1f' },
        tokens: { access_token: 'access-token-93ab', token_type: 'Bearer' },
      }));
      expect(await core.handle('servers.oauthStatus', { name: 'notes' })).toMatchObject({
        value: { kind: 'signed-in' },
      });

      expect((await core.handle('servers.remove', { name: 'notes' })).ok).toBe(true);
      const secrets = await readFile(join(home, 'secrets.json'), 'utf8');
      expect(secrets).not.toContain('access-token-93ab');
      expect(secrets).not.toContain('client-5e1f');
    } finally {
      await core.close();
    }
  });
});
