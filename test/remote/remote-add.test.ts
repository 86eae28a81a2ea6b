/** Adding and removing a remote server through the contract: where its header values live. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-remote-add-', (d) => (home = d));

const remote = (headers: { name: string; value: string }[]) => ({
  url: 'https://mcp.example.com/mcp',
  transport: 'streamable-http',
  headers,
});

describe('servers.add with a remote upstream', () => {
  it('stores header values in the secret store only, and removes them with the server', async () => {
    const core = await createCore({ wardenHome: home, probeHost: false });
    try {
      const added = await core.handle('servers.add', {
        name: 'docs',
        remote: remote([{ name: 'X-Api-Key', value: 'key-value-31f0c2' }]),
        policy: defaultPolicy(),
      });
      expect(added.ok).toBe(true);
      const ref = core.config.getServer('docs')?.remote?.headers[0]?.ref;
      expect(ref).toBe('docs/header/x-api-key');
      await core.config.flush();
      expect(await readFile(join(home, 'config.json'), 'utf8')).not.toContain('key-value-31f0c2');

      expect(await readFile(join(home, 'secrets.json'), 'utf8')).toContain('key-value-31f0c2');
      const removed = await core.handle('servers.remove', { name: 'docs' });
      expect(removed.ok).toBe(true);
      expect(await readFile(join(home, 'secrets.json'), 'utf8')).not.toContain('key-value-31f0c2');
    } finally {
      await core.close();
    }
  });

  it('refuses a command and a URL together, a header given twice, and a header value on two lines', async () => {
    const core = await createCore({ wardenHome: home, probeHost: false });
    try {
      const both = await core.handle('servers.add', {
        name: 'both',
        launch: { command: 'node', args: [] },
        remote: remote([]),
        policy: defaultPolicy(),
      });
      expect(!both.ok && both.error.kind).toBe('invalid-input');
      const twice = await core.handle('servers.add', {
        name: 'twice',
        remote: remote([
          { name: 'X-Key', value: 'aaaa' },
          { name: 'x-key', value: 'bbbb' },
        ]),
        policy: defaultPolicy(),
      });
      expect(!twice.ok && twice.error.message).toMatch(/given twice/);
      const split = await core.handle('servers.add', {
        name: 'split',
        remote: remote([{ name: 'X-Key', value: 'a\r\nInjected: 1' }]),
        policy: defaultPolicy(),
      });
      expect(!split.ok && split.error.kind).toBe('invalid-input');
      expect(core.config.listServers()).toHaveLength(0);
    } finally {
      await core.close();
    }
  });
});
