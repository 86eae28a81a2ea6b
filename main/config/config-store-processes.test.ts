/**
 * Two stores of one config.json stand for two Warden processes (the app, and a standalone
 * `warden connect` pinning a server's tools, or the CLI), neither having seen the other's last
 * change yet (its file watch waits 50 ms): each change takes in what the other wrote before it
 * applies its own, under the file's lock, so nothing the other did is written back over.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Policy } from '../../app/policy/policy-schema';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { ConfigStore } from './config-store';

let home = '';
tempDirEach('warden-config-processes-', (d) => (home = d));

const launch = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };
const networked = (): Policy => ({
  ...defaultPolicy(),
  network: { ...defaultPolicy().network, mode: 'allowlist', allow: ['example.com'] },
});
const onDisk = async () =>
  JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
    servers: { name: string; policy: Policy }[];
  };

it('keeps a server the other process added', async () => {
  const app = await ConfigStore.open({ wardenHome: home });
  const cli = await ConfigStore.open({ wardenHome: home });
  expect((await cli.addServer({ name: 'a', launch, policy: defaultPolicy() })).ok).toBe(true);
  expect((await app.addServer({ name: 'b', launch, policy: defaultPolicy() })).ok).toBe(true);
  expect((await onDisk()).servers.map((s) => s.name)).toEqual(['a', 'b']);
  expect(app.getServer('a')).toBeDefined();
});

it('never brings back a server the other process removed', async () => {
  const app = await ConfigStore.open({ wardenHome: home });
  await app.addServer({ name: 'gone', launch, policy: defaultPolicy() });
  await app.addServer({ name: 'kept', launch, policy: defaultPolicy() });
  const connect = await ConfigStore.open({ wardenHome: home });
  expect((await app.removeServer('gone')).ok).toBe(true);
  const pinned = await connect.updateServer('kept', (s) => ({
    policy: { ...s.policy, tools: { ...s.policy.tools, pinned: {} } },
  }));
  expect(pinned.ok).toBe(true);
  expect((await onDisk()).servers.map((s) => s.name)).toEqual(['kept']);
  expect(connect.getServer('gone')).toBeUndefined();
});

it('never writes back a network grant the other process withdrew', async () => {
  const app = await ConfigStore.open({ wardenHome: home });
  await app.addServer({ name: 'web', launch, policy: networked() });
  const connect = await ConfigStore.open({ wardenHome: home });
  expect((await app.updateServer('web', () => ({ policy: defaultPolicy() }))).ok).toBe(true);
  // The other process's change is made on the server as it now is, not as it last saw it.
  const pinned = await connect.updateServer('web', (s) => ({
    policy: { ...s.policy, idleTimeoutSeconds: 77 },
  }));
  expect(pinned.ok && pinned.value.policy.network.mode).toBe('none');
  const web = (await onDisk()).servers.find((s) => s.name === 'web');
  expect(web?.policy.network).toMatchObject({ mode: 'none', allow: [] });
  expect(web?.policy.idleTimeoutSeconds).toBe(77);
});

it('refuses a change made against a revision the other process has moved on from', async () => {
  const app = await ConfigStore.open({ wardenHome: home });
  const added = await app.addServer({ name: 'web', launch, policy: networked() });
  const revision = added.ok ? added.value.revision : 0;
  const cli = await ConfigStore.open({ wardenHome: home });
  await cli.updateServer('web', () => ({ policy: defaultPolicy() }));
  const stale = await app.updateServer('web', () => ({ policy: networked() }), revision);
  expect(stale).toMatchObject({ ok: false, error: { kind: 'conflict' } });
  expect((await onDisk()).servers[0]?.policy.network.mode).toBe('none');
});

it('takes every change of two stores made at once', async () => {
  const one = await ConfigStore.open({ wardenHome: home });
  const two = await ConfigStore.open({ wardenHome: home });
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? one : two).addServer({ name: `s${i}`, launch, policy: defaultPolicy() }),
    ),
  );
  expect((await onDisk()).servers.map((s) => s.name).sort()).toEqual(
    Array.from({ length: 8 }, (_, i) => `s${i}`),
  );
});
