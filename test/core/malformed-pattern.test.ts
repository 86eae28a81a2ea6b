/**
 * One validator for a policy: a malformed network pattern, address or folder path is refused by
 * the schema itself, so every door — the contract, the config store, config.json and the CLI —
 * refuses it naming the same field with the same message.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { CONFIG_SCHEMA_VERSION, policySchema } from '../../app/policy/policy-schema';
import { validate } from '../../app/policy/validate';
import { runCli } from '../../main/cli/cli';
import { ConfigStore } from '../../main/config/config-store';
import { createCore } from '../../main/core/core';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-malformed-', (d) => (home = d));

const URL_MESSAGE = /"http:\/\/a\.test\/" is a URL, not a host pattern/;

function badPolicy() {
  const policy = defaultPolicy();
  policy.network = { ...policy.network, mode: 'allowlist', allow: ['ok.test', 'http://a.test/'] };
  return policy;
}

it('the schema names the field of a bad pattern, address and path', () => {
  const policy = badPolicy();
  policy.network.allowAddresses = ['10.0.0.300'];
  policy.filesystem.roots = [{ path: '/srv/../etc', access: 'read' }];
  const checked = validate(policySchema, policy);
  expect(checked.ok).toBe(false);
  const fields = checked.ok ? [] : checked.error;
  expect(fields.map((f) => f.field)).toEqual([
    'filesystem.roots[0].path',
    'network.allow[1]',
    'network.allowAddresses[0]',
  ]);
  expect(fields.find((f) => f.field === 'network.allow[1]')?.message).toMatch(URL_MESSAGE);
});

it('the contract and the config store refuse it naming the field', async () => {
  const core = await createCore({ wardenHome: home });
  try {
    const reply = await core.handle('servers.add', {
      name: 's',
      launch: { command: '/bin/true', args: [] },
      policy: badPolicy(),
    });
    expect(reply.ok).toBe(false);
    const fields = reply.ok ? [] : (reply.error.fields ?? []);
    expect(fields.map((f) => f.field)).toEqual(['policy.network.allow[1]']);
    expect(fields[0]?.message).toMatch(URL_MESSAGE);
    const stored = await core.config.addServer({
      name: 's',
      launch: { command: '/bin/true', args: [] },
      policy: badPolicy(),
    });
    expect(stored.ok).toBe(false);
    expect(!stored.ok && stored.error.kind === 'invalid-input' && stored.error.fields).toEqual(
      fields,
    );
  } finally {
    await core.close();
  }
});

it('config.json with a bad pattern is refused naming the field', async () => {
  const server = {
    name: 's',
    launch: { command: '/bin/true', args: [] },
    policy: badPolicy(),
    revision: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    acknowledged: true,
  };
  const doc = { schemaVersion: CONFIG_SCHEMA_VERSION, servers: [server] };
  await writeFile(join(home, 'config.json'), JSON.stringify(doc));
  const store = await ConfigStore.open({ wardenHome: home });
  expect(store.getServer('s')).toBeUndefined();
  expect(JSON.stringify(store.getProblems())).toMatch(/policy\.network\.allow\[1\]: \\"http/);
});

it('the CLI refuses it naming the flag and the same message', async () => {
  let err = '';
  const io = { stdout: () => undefined, stderr: (s: string) => void (err += s) };
  process.env.WARDEN_HOME = home;
  const status = await runCli(
    ['servers', 'add', 's', '--allow', 'http://a.test/', '--', '/bin/true'],
    io,
  );
  expect(status).toBe(2);
  expect(err).toMatch(/--allow "http:\/\/a\.test\/"/);
  expect(err).toMatch(/is a URL, not a host pattern/);
});
