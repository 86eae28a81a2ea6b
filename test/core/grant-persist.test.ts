/**
 * An "always" grant decision is saved through the real core so that the choice holds: "always
 * deny" of a pattern the allow list holds takes it out of that list, and "always allow" out of
 * the deny list.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { type Core, createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
let core: Core;
tempDirEach('warden-grant-persist-', (d) => (home = d));
beforeEach(async () => {
  core = await createCore({ wardenHome: home });
});
afterEach(async () => {
  await core.close();
});

async function decide(pattern: string, decision: 'allow-always' | 'deny-always') {
  const [host, port] = pattern.split(':') as [string, string];
  const answer = core.grants.request({
    server: 's',
    instance: 'i-1',
    host,
    port: Number(port),
    pattern,
    timeoutMs: 30_000,
  });
  const id = core.grants.pending().find((g) => g.host === host)!.id;
  expect(await core.handle('grants.decide', { id, decision })).toMatchObject({ ok: true });
  await answer;
  return core.config.getServer('s')!.policy.network;
}

it('"always deny" of an allowed pattern removes it from the allow list, and the reverse', async () => {
  const policy = defaultPolicy();
  policy.network = { ...policy.network, mode: 'ask', allow: ['api.test:443', 'other.test:443'] };
  const added = await core.config.addServer({
    name: 's',
    launch: { command: 'x', args: [] },
    policy,
  });
  expect(added.ok).toBe(true);

  const denied = await decide('api.test:443', 'deny-always');
  expect(denied.allow).toEqual(['other.test:443']);
  expect(denied.deny).toEqual(['api.test:443']);

  const allowed = await decide('api.test:443', 'allow-always');
  expect(allowed.allow).toEqual(['other.test:443', 'api.test:443']);
  expect(allowed.deny).toEqual([]);
});
