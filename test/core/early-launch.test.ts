/**
 * The launch a one-session core makes before it is built: only from config.json bytes recorded as
 * validated (a tampered file or record means the core validates in full and launches itself),
 * only for what it covers, never past a guard layer that refuses, and taken by the session only
 * for the server the core itself reads; the session's events stay the ones a launch records.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { launchError } from '../../app/contract/launch-error';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Server } from '../../app/policy/policy-schema';
import { err } from '../../app/result';
import { ConfigStore } from '../../main/config/config-store';
import { validatedRecordPath } from '../../main/config/validated-config-cache';
import { createCore } from '../../main/core/core';
import { type EarlyLaunch, launchEarly, launchesAlone } from '../../main/core/early-launch';
import { matchesEarlyLaunch } from '../../main/core/early-launch-match';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';

const SCHEMA = 'early-launch-test-schema';
const SLEEPER = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };

let home: string;
let early: EarlyLaunch | undefined;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-early-'));
  early = undefined;
});
afterEach(async () => {
  await early?.discard();
  vi.unstubAllEnvs();
  await rm(home, { recursive: true, force: true });
});

/** Stores `server` (isolation off: runs on any host) and records the file as validated. */
async function store(server: Partial<Server> = {}): Promise<ConfigStore> {
  const config = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
  const added = await config.addServer({
    name: 'sleeper',
    launch: SLEEPER,
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: true,
    ...server,
  });
  expect(added.ok).toBe(true);
  await config.flush();
  // A second open sees the recorded bytes (the first write is recorded once it is read back).
  const reread = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
  await reread.flush();
  expect(existsSync(validatedRecordPath(home))).toBe(true);
  return reread;
}

/** A session-only core whose own launcher refuses every launch, counting them. */
async function coreCountingLaunches(options: { deferAudit?: boolean } = {}) {
  const launches = { count: 0 };
  const core = await createCore({
    wardenHome: home,
    backend: unsandboxedBackend(),
    probeHost: false,
    ...options,
    launcher: {
      launch: () => {
        launches.count++;
        return Promise.resolve(err(launchError('internal', 'refused for the test')));
      },
    },
  });
  return { core, launches };
}

const launch = () =>
  launchEarly({
    wardenHome: home,
    name: 'sleeper',
    schemaId: SCHEMA,
    backend: unsandboxedBackend(),
  });

describe('the launch ahead of a one-session core', () => {
  it('launches from recorded bytes, for the server and guards a core reads from them', async () => {
    const config = await store();
    early = await launch();
    expect(early).toBeDefined();
    expect(early!.launched.process.pid).toBeGreaterThan(0);
    expect(existsSync(early!.instanceDir)).toBe(true);
    const server = config.readServer('sleeper');
    expect(matchesEarlyLaunch(early!, server, config.readGuards())).toBe(true);
    expect(matchesEarlyLaunch(early!, { ...server!, revision: 2 }, config.readGuards())).toBe(
      false,
    );
    expect(matchesEarlyLaunch(early!, server, { hiddenPaths: ['/x'] })).toBe(false);
    expect(matchesEarlyLaunch(early!, undefined, config.readGuards())).toBe(false);
    await early!.discard();
    expect(await early!.launched.process.exited).toMatchObject({ reason: 'stopped' });
    expect(existsSync(early!.instanceDir)).toBe(false);
  });

  it('does nothing when the bytes of config.json are not the ones recorded', async () => {
    await store();
    const path = join(home, 'config.json');
    // A change that the schemas would refuse: only a full validation may judge it.
    const text = (await readFile(path, 'utf8')).replace('"off"', '"nothing"');
    await writeFile(path, text);
    early = await launch();
    expect(early).toBeUndefined();
    const full = await ConfigStore.open({ wardenHome: home, schemaId: SCHEMA });
    expect(full.getProblems().map((p) => p.kind)).toEqual(['invalid']);
  });

  it('does nothing when the record is tampered with, or written by another build', async () => {
    await store();
    const record = validatedRecordPath(home);
    const body = JSON.parse(await readFile(record, 'utf8')) as Record<string, unknown>;
    await writeFile(record, JSON.stringify({ ...body, sha256: '0'.repeat(64) }), { mode: 0o600 });
    expect(await launch()).toBeUndefined();
    await writeFile(record, JSON.stringify(body), { mode: 0o600 });
    expect(
      await launchEarly({ wardenHome: home, name: 'sleeper', schemaId: 'another-build' }),
    ).toBeUndefined();
    // Readable by others: not this user's private record.
    await chmod(record, 0o644);
    expect(await launch()).toBeUndefined();
  });

  it('leaves a launch that a guard layer refuses to the core, spawning nothing', async () => {
    await store();
    const managed = join(home, 'managed.json');
    await writeFile(managed, JSON.stringify({ isolation: { allowOff: false } }), { mode: 0o644 });
    vi.stubEnv('WARDEN_MANAGED_POLICY', managed);
    expect(await launch()).toBeUndefined();
    expect(existsSync(join(home, 'instances'))).toBe(true);
    expect(await readdir(join(home, 'instances'))).toEqual([]);
  });

  it('covers only servers that need no core service at launch', () => {
    const base: Server = {
      name: 's',
      revision: 1,
      launch: SLEEPER,
      policy: defaultPolicy(),
      acknowledged: true,
    } as Server;
    expect(launchesAlone(base, 'linux')).toBe(true);
    expect(launchesAlone({ ...base, acknowledged: false }, 'linux')).toBe(false);
    expect(launchesAlone(base, 'darwin')).toBe(false);
    const { launch: _launch, ...remote } = base;
    expect(launchesAlone(remote as Server, 'linux')).toBe(false);
    const secret = structuredClone(base);
    secret.policy.env.set.TOKEN = { kind: 'secret', ref: 'r' };
    expect(launchesAlone(secret, 'linux')).toBe(false);
  });

  it('is taken by the session; its events are a launch’s, in order, after a deferred open', async () => {
    const config = await store();
    early = await launch();
    const { core, launches } = await coreCountingLaunches({ deferAudit: true });
    try {
      const server = core.config.readServer('sleeper')!;
      expect(matchesEarlyLaunch(early!, server, core.config.readGuards())).toBe(true);
      const [, sessionSide] = InMemoryTransport.createLinkedPair();
      const { instanceId, launched } = early!;
      const session = await core.supervisor.open('sleeper', sessionSide, 'test', {
        instanceId,
        revision: server.revision,
        launched,
      });
      expect(launches.count).toBe(0);
      expect(session.id).toBe(instanceId);
      expect(session.view()).toMatchObject({
        state: { kind: 'running', pid: launched.process.pid },
      });
      expect(existsSync(join(home, 'audit.db'))).toBe(false);
      await core.openAudit();
      await core.audit.flush();
      const rows = (await core.audit.query({ limit: 10, server: 'sleeper' })).rows.reverse();
      expect(rows.map((r) => r.kind)).toEqual([
        'instance.lifecycle',
        'sandbox.launch',
        'instance.lifecycle',
      ]);
      expect(rows.every((r) => r.instance === instanceId)).toBe(true);
      expect(core.audit.verify()).toMatchObject({ ok: true, rows: 3 });
    } finally {
      await core.close();
      await config.flush();
    }
    expect(await early!.launched.process.exited).toMatchObject({ reason: 'stopped' });
  });

  it('is stopped, and the session launches its own, when the server changed meanwhile', async () => {
    await store();
    early = await launch();
    const { core, launches } = await coreCountingLaunches();
    try {
      const [, sessionSide] = InMemoryTransport.createLinkedPair();
      const { instanceId, launched } = early!;
      const session = await core.supervisor.open('sleeper', sessionSide, 'test', {
        instanceId,
        revision: 0,
        launched,
      });
      expect(await launched.process.exited).toMatchObject({ reason: 'stopped' });
      expect(launches.count).toBe(1);
      expect(session.view().state).toMatchObject({ kind: 'failed' });
    } finally {
      await core.close();
    }
  });
});
