/**
 * A server added by hand (the Add form and `warden servers add` both call `servers.add`) whose
 * command is a known launcher gets the launcher's cache folder, writable, and the variable that
 * points the launcher at it, as import grants them, and the user's npm settings that npm inside the
 * sandbox cannot read; nothing else of the preset (no network).
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Server } from '../../app/policy/policy-schema';
import { createCore } from '../../main/core/core';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';

let base: string;
let home: string;
const realHome = process.env.HOME;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'warden-add-caches-'));
  home = join(base, 'home');
  process.env.HOME = home;
});
afterEach(async () => {
  process.env.HOME = realHome;
  await rm(base, { recursive: true, force: true });
});

let added = 0;
async function add(command: string, args: string[], policy = defaultPolicy()): Promise<Server> {
  const core = await createCore({ wardenHome: join(base, 'state'), backend: unsandboxedBackend() });
  try {
    const reply = await core.handle('servers.add', {
      name: `added-${++added}`,
      launch: { command, args },
      policy,
    });
    if (!reply.ok) throw new Error(reply.error.message);
    return (reply.value as { server: Server }).server;
  } finally {
    await core.close();
  }
}

describe('servers.add applies the launcher presets', () => {
  it('npx: ~/.npm writable, created, and npm_config_cache set; no network granted', async () => {
    const server = await add('npx', ['-y', '@modelcontextprotocol/server-memory']);
    expect(server.policy.filesystem.roots).toEqual([{ path: join(home, '.npm'), access: 'write' }]);
    expect(server.policy.env.set.npm_config_cache).toEqual({
      kind: 'plain',
      value: join(home, '.npm'),
    });
    expect(server.policy.network.mode).toBe('none');
    expect((await stat(join(home, '.npm'))).mode & 0o777).toBe(0o700);
  });

  it('keeps what the form chose: a folder already given, a variable already set', async () => {
    const policy = defaultPolicy();
    policy.filesystem.roots = [{ path: join(home, '.npm'), access: 'read' }];
    policy.env.set.npm_config_cache = { kind: 'plain', value: '/elsewhere' };
    const server = await add('npx', ['-y', 'pkg'], policy);
    expect(server.policy.filesystem.roots).toEqual([{ path: join(home, '.npm'), access: 'read' }]);
    expect(server.policy.env.set.npm_config_cache).toEqual({ kind: 'plain', value: '/elsewhere' });
  });

  it('grants no cache folder that the variable the user set points away from', async () => {
    const policy = defaultPolicy();
    policy.filesystem.roots = [{ path: '/elsewhere', access: 'write' }];
    policy.env.set.npm_config_cache = { kind: 'plain', value: '/elsewhere' };
    const server = await add('npx', ['-y', 'pkg'], policy);
    expect(server.policy.filesystem.roots).toEqual([{ path: '/elsewhere', access: 'write' }]);
    expect(server.policy.env.set.npm_config_cache).toEqual({ kind: 'plain', value: '/elsewhere' });
    // The same folder named by the user is the preset's: granted as before.
    const same = defaultPolicy();
    same.env.set.npm_config_cache = { kind: 'plain', value: join(home, '.npm') };
    expect((await add('npx', ['-y', 'pkg'], same)).policy.filesystem.roots).toEqual([
      { path: join(home, '.npm'), access: 'write' },
    ]);
  });

  it("npx: the user's npm allow-scripts, which npm inside the sandbox cannot read", async () => {
    // npm exports its own userconfig to the processes it starts (this suite among them).
    const userconfig = process.env.npm_config_userconfig;
    process.env.npm_config_userconfig = join(home, '.npmrc');
    try {
      expect((await add('npx', ['-y', 'pkg'])).policy.env.set).not.toHaveProperty(
        'npm_config_allow_scripts',
      );
      await mkdir(home, { recursive: true });
      await writeFile(
        join(home, '.npmrc'),
        '//registry.npmjs.org/:_authToken=npm_SECRET\nallow-scripts=sharp,better-sqlite3\n',
      );
      const server = await add('npx', ['-y', 'pkg']);
      expect(server.policy.env.set.npm_config_allow_scripts).toEqual({
        kind: 'plain',
        value: 'sharp,better-sqlite3',
      });
      expect(JSON.stringify(server.policy)).not.toContain('npm_SECRET');
      // The form's own choice stays: a value of its own, or the variable passed from the host.
      const own = defaultPolicy();
      own.env.set.npm_config_allow_scripts = { kind: 'plain', value: 'canvas' };
      expect(
        (await add('npx', ['-y', 'pkg'], own)).policy.env.set.npm_config_allow_scripts,
      ).toEqual({ kind: 'plain', value: 'canvas' });
      const passed = defaultPolicy();
      passed.env.pass = ['npm_config_allow_scripts'];
      expect((await add('npx', ['-y', 'pkg'], passed)).policy.env.set).not.toHaveProperty(
        'npm_config_allow_scripts',
      );
      // Other launchers, and a server run without a sandbox (its npm reads the file), get nothing.
      expect((await add('uvx', ['pkg'])).policy.env.set).not.toHaveProperty(
        'npm_config_allow_scripts',
      );
      const off = { ...defaultPolicy(), isolation: 'off' as const };
      expect((await add('npx', ['-y', 'pkg'], off)).policy.env.set).toEqual({});
    } finally {
      if (userconfig === undefined) delete process.env.npm_config_userconfig;
      else process.env.npm_config_userconfig = userconfig;
    }
  });

  it('adds nothing to a command that is no launcher, nor to a server run without a sandbox', async () => {
    expect((await add('/usr/bin/env', ['true'])).policy.filesystem.roots).toEqual([]);
    const off = { ...defaultPolicy(), isolation: 'off' as const };
    const server = await add('npx', ['-y', 'pkg'], off);
    expect(server.policy.filesystem.roots).toEqual([]);
    expect(server.policy.env.set).toEqual({});
  });
});
