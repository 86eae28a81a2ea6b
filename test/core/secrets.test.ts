import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { safeStorageSecretStore } from '../../main/electron/safe-storage-secret-store';
import { bundleForNode } from '../helpers/bundle';
import { fakeSafeStorage } from '../helpers/fake-safe-storage';
import type { SecretStore } from '../../main/secrets/secret-store';
import { tempDirEach } from '../helpers/temp-dir';

let home = '';
tempDirEach('warden-secrets-', (d) => (home = d));

/** A core (with `secretStore`, else the headless one), and a server with DB_PASSWORD a secret. */
async function withSecretServer(secretStore?: SecretStore) {
  const hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  const core = await createCore({ wardenHome: home, ...(secretStore && { secretStore }) });
  const ref = 'h/DB_PASSWORD';
  await core.config.addServer({
    name: 'h',
    launch: { command: process.execPath, args: [hostile] },
    policy: {
      ...defaultPolicy(),
      isolation: 'off',
      env: { pass: [], set: { DB_PASSWORD: { kind: 'secret', ref } } },
    },
    acknowledged: true,
  });
  return { core, ref };
}

it('a secret is set through the contract, never sent back, given to the server, and redacted from the log', async () => {
  const hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  const core = await createCore({ wardenHome: home });
  const policy = { ...defaultPolicy(), isolation: 'off' as const };
  await core.config.addServer({
    name: 'h',
    launch: { command: process.execPath, args: [hostile] },
    policy,
    acknowledged: true,
  });

  const missing = await (async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await core.handle('servers.update', {
      name: 'h',
      policy: {
        ...policy,
        env: { pass: [], set: { DB_PASSWORD: { kind: 'secret', ref: 'h/DB_PASSWORD' } } },
      },
    });
    const session = await core.supervisor.open('h', b, 'test');
    await a.close();
    return session.view().state;
  })();
  expect(missing.kind).toBe('failed');
  expect(missing.kind === 'failed' && missing.reason).toContain(
    'the secret for DB_PASSWORD is not set',
  );

  const reply = await core.handle('servers.setSecret', {
    name: 'h',
    variable: 'DB_PASSWORD',
    value: 'hunter2-very-secret',
  });
  expect(reply.ok).toBe(true);
  expect(JSON.stringify(reply)).not.toContain('hunter2-very-secret');
  expect(await readFile(join(home, 'config.json'), 'utf8')).not.toContain('hunter2-very-secret');

  const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
  await core.supervisor.open('h', sessionSide, 'test');
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientSide);
  const leaked = await client.callTool({ name: 'leak_env', arguments: { name: 'DB_PASSWORD' } });
  // The server has the value; the client sees it redacted.
  expect(JSON.stringify(leaked.content)).toContain('«secret:DB_PASSWORD»');
  expect(JSON.stringify(leaked.content)).not.toContain('hunter2-very-secret');
  await client.callTool({ name: 'echo', arguments: { message: 'pw=hunter2-very-secret' } });
  await client.close();
  await core.close();
  const db = await readFile(join(home, 'audit.db'));
  const wal = await readFile(join(home, 'audit.db-wal')).catch(() => Buffer.alloc(0));
  expect(db.includes('hunter2-very-secret') || wal.includes('hunter2-very-secret')).toBe(false);
});

it('a secret only the desktop app keeps: a headless core says so, and what to do', async () => {
  const { core, ref } = await withSecretServer();
  // What the app's store holds: ciphertext only the app's keychain can open.
  await writeFile(join(home, 'secrets.safe.json'), JSON.stringify({ [ref]: 'djEw' }), {
    mode: 0o600,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const session = await core.supervisor.open('h', b, 'test');
  await a.close();
  const state = session.view().state;
  await core.close();
  expect(state.kind).toBe('failed');
  const reason = state.kind === 'failed' ? state.reason : '';
  expect(reason).toContain('the secret for DB_PASSWORD could not be read');
  expect(reason).toContain('the Warden desktop app keeps it');
  expect(reason).toContain("start the Warden app: an AI client's warden connect then joins it");
});

it('the app moves a value kept without it into the keychain, and the server then starts with it', async () => {
  const { core, ref } = await withSecretServer(safeStorageSecretStore(home, fakeSafeStorage()));
  // Set by `warden serve` or the command line while the app was closed.
  const file = join(home, 'secrets.json');
  await writeFile(file, JSON.stringify({ [ref]: 'hunter2-from-the-file' }), { mode: 0o600 });
  const launch = async () => {
    const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
    const session = await core.supervisor.open('h', sessionSide, 'test');
    return { clientSide, session };
  };
  const before = await launch();
  await before.clientSide.close();
  const state = before.session.view().state;
  expect(state.kind === 'failed' && state.reason).toContain(`it is in ${file} (unencrypted)`);

  expect(await core.handle('secrets.status', {})).toEqual({
    ok: true,
    value: {
      store: `${join(home, 'secrets.safe.json')} (encrypted with the OS keychain)`,
      encrypted: true,
      unencrypted: { file, names: [ref], differing: [] },
    },
  });
  const moved = await core.handle('secrets.moveIn', { differing: 'keep' });
  expect(moved).toEqual({ ok: true, value: { moved: [ref], kept: [] } });
  expect(JSON.stringify(moved)).not.toContain('hunter2');
  expect(await readFile(file, 'utf8')).not.toContain('hunter2');
  expect(await readFile(join(home, 'secrets.safe.json'), 'utf8')).not.toContain('hunter2');
  expect(await core.handle('secrets.status', {})).toEqual({
    ok: true,
    value: {
      store: `${join(home, 'secrets.safe.json')} (encrypted with the OS keychain)`,
      encrypted: true,
    },
  });

  const after = await launch();
  const client = new Client({ name: 't', version: '1' });
  await client.connect(after.clientSide);
  const leaked = await client.callTool({ name: 'leak_env', arguments: { name: 'DB_PASSWORD' } });
  expect(JSON.stringify(leaked.content)).toContain('«secret:DB_PASSWORD»');
  await client.close();
  await core.close();
});

it('a core without the app has no keychain to move values into, and says so', async () => {
  const core = await createCore({ wardenHome: home });
  await writeFile(join(home, 'secrets.json'), JSON.stringify({ 'h/KEY': 'plain' }), {
    mode: 0o600,
  });
  expect(await core.handle('secrets.status', {})).toEqual({
    ok: true,
    value: { store: `${join(home, 'secrets.json')} (unencrypted, mode 0600)`, encrypted: false },
  });
  const moved = await core.handle('secrets.moveIn', { differing: 'keep' });
  await core.close();
  expect(moved).toEqual({
    ok: false,
    error: {
      kind: 'invalid-input',
      message: `only the Warden desktop app keeps secrets in the OS keychain; this Warden keeps them in ${join(home, 'secrets.json')} (unencrypted, mode 0600)`,
      remedy: 'start the Warden app and move them from its Host status',
    },
  });
  expect(await readFile(join(home, 'secrets.json'), 'utf8')).toContain('plain');
});
