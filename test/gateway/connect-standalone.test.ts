/**
 * A standalone `warden connect` session and the server launched ahead of its core: a launch for
 * a server that changed before the core read it is stopped, the session launches the current
 * revision itself, and the audit log records both launches. A client that stops the session with
 * SIGTERM loses nothing from the audit log.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { openAuditStore } from '../../main/audit/audit-store';
import { ConfigStore } from '../../main/config/config-store';
import { launchEarly } from '../../main/core/early-launch';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { initializeRequest, initializedNotification, jsonLines } from '../helpers/mcp-messages';
import { startStandalone } from '../helpers/standalone-session';
import { runWarden } from '../helpers/warden-bin';

const SCHEMA = 'connect-standalone-test-schema';
/** A server that answers each request line with an empty result. */
const ANSWERS = `require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
  const { id } = JSON.parse(l);
  if (id !== undefined) console.log(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
});`;

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-standalone-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Adds the ANSWERS server as `name`, unsandboxed and confirmed; returns the open store. */
async function addAnswers(name: string, schemaId?: string): Promise<ConfigStore> {
  const config = await ConfigStore.open({ wardenHome: home, ...(schemaId ? { schemaId } : {}) });
  const added = await config.addServer({
    name,
    launch: { command: process.execPath, args: ['-e', ANSWERS] },
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: true,
  });
  expect(added.ok).toBe(true);
  await config.flush();
  return config;
}

it('stops a server launched ahead for an older revision and records that it ran', async () => {
  const config = await addAnswers('sleeper', SCHEMA);
  await (await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA })).flush();
  const early = await launchEarly({
    wardenHome: home,
    name: 'sleeper',
    schemaId: SCHEMA,
    backend: unsandboxedBackend(),
  });
  expect(early).toBeDefined();
  // The server changes after the launch ahead and before the session's core reads it.
  const changed = await config.updateServer('sleeper', (s) => ({
    policy: { ...s.policy, idleTimeoutSeconds: 120 },
  }));
  expect(changed.ok).toBe(true);
  await config.flush();

  const { stdin, stdout, errors, ran } = startStandalone('sleeper', home, early);
  expect(await early!.launched.process.exited).toMatchObject({ reason: 'stopped' });
  // The session's own instance answers; then the client goes.
  const answered = new Promise((resolve) => stdout.once('data', resolve));
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
  await answered;
  stdin.end();
  expect(await ran).toBe(0);
  expect(errors).toEqual([]);

  const store = openAuditStore({ path: join(home, 'audit.db') });
  if (!store.ok) throw new Error(store.error.message);
  const rows = (await store.value.query({ limit: 50, server: 'sleeper' })).rows.reverse();
  await store.value.close();
  const ahead = rows.filter((r) => r.instance === early!.instanceId).map((r) => r.event);
  expect(ahead).toMatchObject([
    { kind: 'sandbox.launch', revision: 1 },
    {
      kind: 'instance.lifecycle',
      state: 'exited',
      reason: expect.stringContaining('changed') as string,
    },
  ]);
  const own = rows
    .map((r) => r.event)
    .filter((e) => e.kind === 'sandbox.launch' && e.instance !== early!.instanceId);
  expect(own).toMatchObject([{ kind: 'sandbox.launch', revision: 2 }]);
});

it('SIGTERM from the client ends the session like a closed stdin: the instance is stopped and every event is written', async () => {
  await addAnswers('answers');
  const bin = join(import.meta.dirname, '../../bin/warden.js');
  const child = spawn(process.execPath, [bin, 'connect', 'answers'], {
    env: { ...process.env, WARDEN_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answered = new Promise((resolve) => child.stdout.once('data', resolve));
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`);
  await answered;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  child.kill('SIGTERM');
  expect(await exited).toBe(143);

  const store = openAuditStore({ path: join(home, 'audit.db') });
  if (!store.ok) throw new Error(store.error.message);
  const events = (await store.value.query({ limit: 50, server: 'answers' })).rows
    .reverse()
    .map((r) => r.event);
  await store.value.close();
  // Answered at once: one `mcp.call` row (or a request and a response row).
  expect(
    events.filter((e) => e.kind !== 'mcp.request' && 'requestId' in e && e.requestId === 7),
  ).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({
    kind: 'instance.lifecycle',
    reason: 'the client disconnected',
  });
}, 30_000);

it('relays nothing before the audit log is open, so nothing when it cannot be opened', async () => {
  // A server that records each tools/call it is sent, in a file outside Warden's reach.
  const marker = join(home, 'called');
  const script = join(home, 'recorder.js');
  await writeFile(
    script,
    `const fs = require('fs');
require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
  const { id, method } = JSON.parse(l);
  if (method === 'tools/call') fs.appendFileSync(${JSON.stringify(marker)}, l + '\\n');
  if (id !== undefined) console.log(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
});`,
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    WARDEN_HOME: join(home, 'w'),
  };
  const added = await runWarden(
    ['servers', 'add', 'recorder', '--isolation', 'off', '--', process.execPath, script],
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  // The audit log's path becomes a folder: it cannot be opened, by root either.
  for (const f of await readdir(env.WARDEN_HOME))
    if (f.startsWith('audit.db')) await rm(join(env.WARDEN_HOME, f), { recursive: true });
  await mkdir(join(env.WARDEN_HOME, 'audit.db'));
  // As an AI client starts it: the server is launched ahead of the session's core, and the
  // client sends its call right behind initialize, without waiting for the answer.
  const run = await runWarden(
    ['connect', 'recorder'],
    env,
    jsonLines(initializeRequest('test'), initializedNotification, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'anything', arguments: {} },
    }),
  );
  expect(run.stderr).toMatch(/the audit log cannot be opened: .*; the session is stopped/);
  expect(run.code).toBe(1);
  expect(run.stdout).not.toMatch(/"result"/);
  expect(existsSync(marker)).toBe(false);
});
