import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { realAtomicWriteOps } from './atomic-write';
import { ConfigStore } from './config-store';
import { tempDirEach } from '../../test/helpers/temp-dir';

let home = '';
tempDirEach('warden-config-', (d) => (home = d));

const launch = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };

describe('ConfigStore', () => {
  it('persists servers and bumps the revision on every change', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    const added = await store.addServer({ name: 'memory', launch, policy: defaultPolicy() });
    expect(added.ok && added.value.revision).toBe(1);
    const policy = { ...defaultPolicy(), isolation: 'off' as const };
    const r2 = await store.updateServer('memory', () => ({ policy }));
    expect(r2.ok && r2.value.revision).toBe(2);
    const r3 = await store.updateServer('memory', (s) => ({
      policy: { ...s.policy, idleTimeoutSeconds: 90 },
    }));
    expect(r3.ok && r3.value.revision).toBe(3);

    const reopened = await ConfigStore.open({ wardenHome: home });
    const server = reopened.getServer('memory');
    expect(server?.revision).toBe(3);
    expect(server?.policy.isolation).toBe('off');
    const onDisk = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      schemaVersion: number;
    };
    expect(onDisk.schemaVersion).toBe(1);
  });

  it('asks for a new confirmation when the command changes, and a confirmation alone is no new revision', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    await store.addServer({ name: 'm', launch, policy: defaultPolicy() });
    const confirmed = await store.updateServer('m', () => ({ acknowledged: true }));
    expect(confirmed.ok && [confirmed.value.revision, confirmed.value.acknowledged]).toEqual([
      1,
      true,
    ]);
    const policyOnly = await store.updateServer('m', (s) => ({
      policy: { ...s.policy, idleTimeoutSeconds: 60 },
    }));
    expect(policyOnly.ok && [policyOnly.value.revision, policyOnly.value.acknowledged]).toEqual([
      2,
      true,
    ]);
    const newCommand = await store.updateServer('m', () => ({
      launch: { command: 'sh', args: ['-c', 'curl x | sh'] },
    }));
    expect(newCommand.ok && [newCommand.value.revision, newCommand.value.acknowledged]).toEqual([
      3,
      false,
    ]);
  });

  it('refuses a stale expected revision', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    await store.addServer({ name: 'm', launch, policy: defaultPolicy() });
    await store.updateServer('m', (s) => ({ policy: { ...s.policy, idleTimeoutSeconds: 60 } }));
    const stale = await store.updateServer('m', () => ({ acknowledged: true }), 1);
    expect(stale.ok).toBe(false);
    expect(!stale.ok && stale.error.kind).toBe('conflict');
  });

  it('names the field that fails validation', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    const policy = defaultPolicy();
    (policy.network as { mode: string }).mode = 'everywhere';
    policy.filesystem.roots.push({ path: 'relative/dir', access: 'read' });
    const result = await store.addServer({ name: 'bad name!', launch, policy });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields =
      result.error.kind === 'invalid-input' ? result.error.fields.map((f) => f.field) : [];
    expect(fields).toContain('name');
    expect(fields).toContain('policy.network.mode');
    expect(fields).toContain('policy.filesystem.roots[0].path');
  });

  it('refuses invalid network patterns when the policy is saved, naming each one', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    const policy = defaultPolicy();
    policy.network.allow.push('api.example.com', '*', 'https://x.example/path');
    const result = await store.addServer({ name: 'net', launch, policy });
    expect(result.ok).toBe(false);
    const fields =
      !result.ok && result.error.kind === 'invalid-input'
        ? result.error.fields.map((f) => f.field)
        : [];
    expect(fields).toEqual(['policy.network.allow[1]', 'policy.network.allow[2]']);
  });

  it('moves a corrupt file aside, reports it, and still starts', async () => {
    await writeFile(join(home, 'config.json'), '{"schemaVersion": 1, "servers": [');
    const store = await ConfigStore.open({ wardenHome: home });
    expect(store.listServers()).toEqual([]);
    const [problem] = store.getProblems();
    expect(problem?.kind).toBe('corrupt');
    const files = await readdir(home);
    const aside = files.find((f) => f.startsWith('config.json.corrupt-'));
    expect(aside).toBeDefined();
    expect(await readFile(join(home, aside!), 'utf8')).toBe('{"schemaVersion": 1, "servers": [');
  });

  it('moves aside a file that fails validation, naming the field', async () => {
    const bad = { schemaVersion: 1, servers: [{ name: 'x', launch: { command: '', args: [] } }] };
    await writeFile(join(home, 'config.json'), JSON.stringify(bad));
    const store = await ConfigStore.open({ wardenHome: home });
    const [problem] = store.getProblems();
    expect(problem?.kind).toBe('invalid');
    expect(problem?.message).toContain('servers[0].launch.command');
  });

  it('keeps a newer schema aside instead of overwriting it', async () => {
    await writeFile(join(home, 'config.json'), JSON.stringify({ schemaVersion: 99, servers: [] }));
    const store = await ConfigStore.open({ wardenHome: home });
    expect(store.getProblems()[0]?.kind).toBe('newer-schema');
  });

  it('leaves the old file whole when a write crashes half way', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    await store.addServer({ name: 'first', launch, policy: defaultPolicy() });
    const before = await readFile(join(home, 'config.json'), 'utf8');

    const crashing = await ConfigStore.open({
      wardenHome: home,
      writeOps: {
        ...realAtomicWriteOps,
        writeChunk: async (handle, data) => {
          await handle.write(data.subarray(0, Math.floor(data.length / 2)));
          throw new Error('simulated crash');
        },
      },
    });
    await expect(
      crashing.addServer({ name: 'second', launch, policy: defaultPolicy() }),
    ).rejects.toThrow('simulated crash');
    expect(await readFile(join(home, 'config.json'), 'utf8')).toBe(before);
    expect((await readdir(home)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('a write of config.json that fails leaves the mark of the text it keeps: no edit is seen', async () => {
    const store = await ConfigStore.open({ wardenHome: home });
    await store.addServer({ name: 'first', launch, policy: defaultPolicy() });
    const before = await readFile(join(home, 'config.json'), 'utf8');
    const failing = await ConfigStore.open({
      wardenHome: home,
      writeOps: {
        ...realAtomicWriteOps,
        rename: async (from, to) => {
          if (to.endsWith('config.json')) throw new Error('simulated full disk');
          await realAtomicWriteOps.rename(from, to);
        },
      },
    });
    await expect(
      failing.addServer({ name: 'second', launch, policy: defaultPolicy() }),
    ).rejects.toThrow('simulated full disk');
    expect(await readFile(join(home, 'config.json.written'), 'utf8')).toBe(before);
    // A store opening next finds nothing changed behind Warden's back.
    const next = await ConfigStore.open({ wardenHome: home });
    const seen: string[] = [];
    next.onChange((c) => seen.push(c.name));
    await next.announceOfflineEdit();
    expect(seen).toEqual([]);
  });
});
