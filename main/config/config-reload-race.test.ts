/**
 * A store that looks at its file (for changes by other processes) while one of its own writes is
 * under way must not take its own older file for someone else's change: that would undo the
 * change it just made, until the next look.
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { ConfigStore } from './config-store';
import { tempDirEach } from '../../test/helpers/temp-dir';

let home = '';
tempDirEach('warden-config-race-', (d) => (home = d));

it('a reload racing with its own write keeps the newer revision', async () => {
  const store = await ConfigStore.open({ wardenHome: home });
  const launch = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };
  await store.addServer({ name: 'memory', launch, policy: defaultPolicy() });
  for (let i = 0; i < 20; i++) {
    const reload = store.reloadIfChanged();
    const update = store.updateServer('memory', (s) => ({
      policy: { ...s.policy, idleTimeoutSeconds: 100 + i },
    }));
    await Promise.all([reload, update]);
    expect(store.getServer('memory')?.revision).toBe(i + 2);
  }
});
