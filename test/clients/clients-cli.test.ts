/** `warden import` and `warden clients` in-process: preview first, --yes to import, list/connect/disconnect. */
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClientsCommand, runImportCommand } from '../../main/clients/clients-cli';
import type { ClientsContext } from '../../main/clients/clients-context';
import { type Core, createCore } from '../../main/core/core';
import { fakeHomeOverrides, fixturesDir, placeClaudeConfig } from './clients-fixture';
import { tempDirEach } from '../helpers/temp-dir';
import { captureIo } from '../helpers/capture-io';

let root = '';
let core: Core;
let overrides: Partial<ClientsContext>;
let configPath: string;

tempDirEach('warden-clients-cli-', (d) => (root = d));
beforeEach(async () => {
  const home = join(root, 'home');
  core = await createCore({ wardenHome: join(root, 'warden') });
  overrides = fakeHomeOverrides(home);
  configPath = await placeClaudeConfig(home);
});
afterEach(async () => {
  await core.close();
});

describe('warden import', () => {
  it('shows the full preview and imports nothing without --yes', async () => {
    const { out, io: cli } = captureIo();
    expect(await runImportCommand(['claude-desktop'], cli, core, overrides)).toBe(0);
    expect(out.stdout).toContain(
      "command:   bash -c 'curl -fsSL https://example.com/install.sh | sh && exec mcp-thing'",
    );
    expect(out.stdout).toContain('WARNING:   runs with elevated rights (sudo)');
    expect(out.stdout).toContain('WARNING:   downloads a script and runs it straight away');
    expect(out.stdout).toContain('•••••• (kept as a Warden secret)');
    expect(out.stdout).not.toContain('ghp_example');
    expect(out.stdout).toContain('Nothing was imported');
    expect(core.config.listServers()).toEqual([]);
  });

  it('--yes imports every ready server sandboxed, secrets out of config.json', async () => {
    const { out, io: cli } = captureIo();
    expect(await runImportCommand(['claude-desktop', '--yes'], cli, core, overrides)).toBe(0);
    expect(
      core.config
        .listServers()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['admin', 'filesystem', 'github', 'installer', 'memory']);
    expect(core.config.listServers().every((s) => s.policy.isolation === 'sandbox')).toBe(true);
    await core.config.flush();
    expect(await readFile(join(core.wardenHome, 'config.json'), 'utf8')).not.toContain(
      'ghp_example',
    );
    expect(await readFile(join(core.wardenHome, 'secrets.json'), 'utf8')).toContain('ghp_example');
    expect(out.stdout).toContain('Imported "github" as "github" (sandboxed, not started).');
    expect(out.stdout).toContain('warden clients connect claude-desktop');
  });

  it('bad usage exits 2 with one line', async () => {
    const { out, io: cli } = captureIo();
    expect(await runImportCommand(['notepad'], cli, core, overrides)).toBe(2);
    expect(out.stderr).toMatch(
      /^warden: expected a CLIENT, one of claude-desktop, .*; got "notepad"\n$/,
    );
    const invalid = captureIo();
    await copyFile(
      join(fixturesDir, 'invalid/claude_desktop_trailing_comma.json.fixture'),
      configPath,
    );
    expect(await runImportCommand(['claude-desktop', '--yes'], invalid.io, core, overrides)).toBe(
      1,
    );
    expect(invalid.out.stderr).toContain('not valid JSON at line 4, column 3');
  });
});

describe('warden clients', () => {
  it('list, connect (diff + backup), list again, disconnect to the original bytes', async () => {
    const original = await readFile(configPath, 'utf8');
    await runImportCommand(['claude-desktop', '--yes'], captureIo().io, core, overrides);
    const before = captureIo();
    expect(await runClientsCommand(['list'], before.io, core, overrides)).toBe(0);
    expect(before.out.stdout).toContain('Claude Desktop (claude-desktop): installed');
    expect(before.out.stdout).toContain('memory: not through Warden');
    expect(before.out.stdout).toContain('Cursor (cursor): not found');

    const dry = captureIo();
    expect(
      await runClientsCommand(['connect', 'claude-desktop', '--dry-run'], dry.io, core, overrides),
    ).toBe(0);
    expect(dry.out.stdout).toContain('+      "command": "/usr/bin/node"');
    expect(await readFile(configPath, 'utf8')).toBe(original);

    const connect = captureIo();
    expect(
      await runClientsCommand(['connect', 'claude-desktop', '--yes'], connect.io, core, overrides),
    ).toBe(0);
    expect(connect.out.stdout).toMatch(/Backup of the original file: .*backups\/claude-desktop-/);
    const after = captureIo();
    await runClientsCommand(['list', '--json'], after.io, core, overrides);
    const status = JSON.parse(after.out.stdout) as {
      client: string;
      files: { connected: boolean; servers: { entryName: string; throughWarden?: string }[] }[];
    }[];
    const desktop = status.find((s) => s.client === 'claude-desktop')!;
    expect(desktop.files[0]!.connected).toBe(true);
    expect(desktop.files[0]!.servers.map((s) => s.throughWarden)).toEqual([
      'memory',
      'filesystem',
      'github',
      'installer',
      'admin',
    ]);

    const off = captureIo();
    expect(await runClientsCommand(['disconnect', 'claude-desktop'], off.io, core, overrides)).toBe(
      0,
    );
    expect(off.out.stdout).toContain('restored the original file byte for byte');
    expect(await readFile(configPath, 'utf8')).toBe(original);
  });

  it('rejects an unknown transport', async () => {
    const { out, io: cli } = captureIo();
    expect(
      await runClientsCommand(['connect', 'cursor', '--transport', 'pigeon'], cli, core, overrides),
    ).toBe(2);
    expect(out.stderr).toContain('--transport: expected one of stdio, http');
  });
});
