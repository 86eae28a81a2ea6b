/**
 * The managed layer wins over every server: with a managed policy that forbids isolation off and
 * denies *.blocked.test, adding or editing a server that breaks either is refused, naming the
 * rule, from the CLI (exit 2) and the contract (a typed error); a malformed managed file refuses
 * changes and launches until it is fixed, and a managed file others may write is not trusted.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { runExecCommand } from '../../main/sandbox/exec-command';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { managedHomeEach } from '../helpers/managed-home';

const h = managedHomeEach('warden-managed-', {
  isolation: { allowOff: false },
  network: { deny: ['*.blocked.test'] },
});
const { cli, io, openCore } = h;

/** Runs the CLI and expects exit 2 naming `rule`; stderr is cleared for the next call. */
async function refusedNaming(rule: string, ...args: string[]) {
  expect(await cli(...args)).toBe(2);
  expect(h.errs).toContain(rule);
  h.errs = '';
}

describe('managed policy, from the CLI', () => {
  it('refuses servers add --isolation off with exit 2, naming the managed rule', async () => {
    expect(await cli('servers', 'add', 'bare', '--isolation', 'off', '--', 'true')).toBe(2);
    expect(h.errs).toContain('managed isolation.allowOff=false');
    h.errs = '';
    expect(await cli('servers', 'list')).toBe(0);
    expect(h.out).not.toContain('bare');
  });

  it('refuses an allowed destination the managed layer denies, on add and on edit', async () => {
    const add = ['servers', 'add', 'web', '--net', 'allowlist'];
    const rule = 'managed network.deny "*.blocked.test"';
    await refusedNaming(rule, ...add, '--allow', 'api.blocked.test', '--', 'true');
    expect(await cli(...add, '--allow', 'api.fine.test', '--', 'true')).toBe(0);
    await refusedNaming(rule, 'servers', 'edit', 'web', '--allow', 'API.Blocked.Test:443');
    expect(await cli('servers', 'edit', 'web', '--isolation', 'off')).toBe(2);
  });

  it('a malformed managed file refuses changes and launches, saying why', async () => {
    await writeFile(h.managed, '{"isolation": {"allowOff": "no"}, "netwrk": {}}');
    expect(await cli('servers', 'add', 'x', '--', 'true')).toBe(2);
    expect(h.errs).toContain(h.managed);
    h.errs = '';
    const status = await runExecCommand(['--isolation', 'sandbox', '--', 'true'], io, {
      backend: unsandboxedBackend(),
    });
    expect(status).not.toBe(0);
    expect(h.errs).toMatch(/launch refused \(policy-forbidden\).*isolation\.allowOff/);
    expect(h.errs).toContain('netwrk');
  });

  it('does not trust a managed file that group or others may write', async () => {
    await chmod(h.managed, 0o666);
    expect(await cli('servers', 'add', 'x', '--', 'true')).toBe(2);
    expect(h.errs).toContain('writable by group or others');
  });
});

describe('managed policy, through the contract and the supervisor', () => {
  it('answers a typed error naming the rule; a malformed file refuses the launch', async () => {
    const core = await openCore();
    try {
      const launch = { command: 'cat', args: [] };
      const off = await core.handle('servers.add', {
        name: 'bare',
        launch,
        policy: { ...defaultPolicy(), isolation: 'off' },
      });
      expect(off).toMatchObject({
        ok: false,
        error: { kind: 'policy-forbidden', rule: 'managed isolation.allowOff=false' },
      });
      const policy = defaultPolicy();
      policy.network = { ...policy.network, mode: 'allowlist', allow: ['api.blocked.test'] };
      const denied = await core.handle('servers.add', { name: 'web', launch, policy });
      expect(denied).toMatchObject({
        ok: false,
        error: { kind: 'policy-forbidden', rule: 'managed network.deny "*.blocked.test"' },
      });

      expect(
        (await core.handle('servers.add', { name: 'ok', launch, policy: defaultPolicy() })).ok,
      ).toBe(true);
      await core.handle('servers.acknowledge', { name: 'ok' });
      await writeFile(h.managed, '{ not json');
      const started = await core.handle('instances.start', { name: 'ok' });
      const text = JSON.stringify(started);
      expect(text).toContain('policy-forbidden');
      expect(text).toContain(h.managed);
    } finally {
      await core.close();
    }
  });
});

describe('managed allowlist, required enforcement and audit retention', () => {
  const strict = {
    network: { allow: ['*.corp.test'] },
    isolation: { allowBestEffort: false },
    audit: { minRetentionDays: 180 },
  };
  beforeEach(async () => writeFile(h.managed, JSON.stringify(strict), { mode: 0o644 }));

  it('refuses from the CLI with exit 2, naming the managed rule', async () => {
    const add = ['servers', 'add', 'web', '--net', 'allowlist'];
    await refusedNaming('managed network.allow', ...add, '--allow', 'api.other.test', '--', 'true');
    expect(await cli(...add, '--allow', 'api.corp.test', '--', 'true')).toBe(0);
    expect(await cli('servers', 'edit', 'web', '--allow', '*.test.corp.test')).toBe(0);
    const bestEffort = 'managed isolation.allowBestEffort=false';
    await refusedNaming(bestEffort, 'servers', 'edit', 'web', '--best-effort', 'memory');
    const retention = 'managed audit.minRetentionDays=180';
    await refusedNaming(retention, 'audit', 'prune', '--max-age-days', '30');
  });

  it('refuses through the contract, and prunes no row the managed minimum keeps', async () => {
    const core = await openCore();
    try {
      const policy = defaultPolicy();
      policy.network = { ...policy.network, mode: 'ask', allow: ['api.other.test'] };
      const launch = { command: 'cat', args: [] };
      expect(await core.handle('servers.add', { name: 'web', launch, policy })).toMatchObject({
        ok: false,
        error: { kind: 'policy-forbidden', rule: 'managed network.allow' },
      });
      const keepLess = await core.handle('audit.setSettings', {
        retention: { maxSizeMb: null, maxAgeDays: 7 },
      });
      expect(keepLess).toMatchObject({
        ok: false,
        error: { kind: 'policy-forbidden', rule: 'managed audit.minRetentionDays=180' },
      });
      // A config edited by hand below the minimum is raised to it when retention runs.
      const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
      core.audit.append({ kind: 'limit.hit', ts: old, outcome: 'refused', limit: 'pids' });
      await core.audit.flush();
      await writeFile(
        join(h.base, 'home', 'config.json'),
        JSON.stringify({
          schemaVersion: 1,
          audit: { retention: { maxSizeMb: null, maxAgeDays: 7 } },
          servers: [],
        }),
      );
      const pruned = await cli('audit', 'prune');
      expect(pruned, h.errs).toBe(0);
      expect(h.out).toContain('nothing to prune (max age 180 days');
    } finally {
      await core.close();
    }
  });
});
