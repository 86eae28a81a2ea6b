/**
 * `warden import` and `warden clients` with a core running (the app, `warden serve`) go through
 * it, as `servers` does: the secrets an import brings land in that core's store (the OS keychain
 * for the app), not in an unencrypted file the app never reads, and the core writes the config.
 * Run through `runCli`, as the command line runs them.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../main/cli/cli';
import { captureIo } from '../helpers/capture-io';
import { type RunningCore, startRunningCore } from '../helpers/running-core';
import { fixturesDir, placeClaudeConfig } from './clients-fixture';

let running: RunningCore;
let configPath: string;

beforeAll(async () => {
  running = await startRunningCore('warden-clients-running-');
  configPath = await placeClaudeConfig(join(running.root, 'home'));
  process.env.WARDEN_HOME = running.wardenHome;
});
afterAll(async () => {
  delete process.env.WARDEN_HOME;
  await running.close();
});

async function warden(...argv: string[]) {
  const run = captureIo();
  const status = await runCli(argv, run.io);
  return { status, ...run.out };
}

/** `warden clients connect claude-desktop --path …` with `extra` flags. */
const connect = (...extra: string[]) =>
  warden('clients', 'connect', 'claude-desktop', '--path', configPath, ...extra);

describe('with a core running', () => {
  it('import hands the secrets to its store, and it adds the servers', async () => {
    const imported = await warden('import', 'claude-desktop', '--path', configPath, '--yes');
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported "github" as "github" (sandboxed, not started).');
    expect(imported.stdout).toContain('Secrets are kept in the test keychain.');
    expect(imported.stdout).not.toContain('unencrypted');
    expect(running.core.config.getServer('github')).toBeDefined();
    expect(await readFile(running.keychain, 'utf8')).toContain('ghp_example');
    // A core of the command's own would have written them here, where the app never looks.
    expect(existsSync(join(running.wardenHome, 'secrets.json'))).toBe(false);
  });

  it('clients connect and disconnect go through it', async () => {
    const original = await readFile(configPath, 'utf8');
    const connected = await connect('--yes');
    expect(connected.status, connected.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toContain('"connect"');
    const off = await warden('clients', 'disconnect', 'claude-desktop', '--path', configPath);
    expect(off.status, off.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(original);
  });

  it('looks for project files in the command’s folder, and resolves a relative --path there', async () => {
    const project = join(running.root, 'project');
    await mkdir(project);
    await copyFile(join(fixturesDir, 'claude-code/mcp.json.fixture'), join(project, '.mcp.json'));
    const before = process.cwd();
    process.chdir(project);
    try {
      const previewed = await warden('import', 'claude-code');
      expect(previewed.status, previewed.stderr).toBe(0);
      expect(previewed.stdout).toContain(join(project, '.mcp.json'));
      const picked = await warden('import', 'claude-code', '--path', '.mcp.json');
      expect(picked.status, picked.stderr).toBe(0);
      expect(picked.stdout).toContain(join(project, '.mcp.json'));
    } finally {
      process.chdir(before);
    }
  });

  it('refuses a --gateway-port its gateway does not hold, and writes nothing', async () => {
    const original = await readFile(configPath, 'utf8');
    const refused = await connect('--transport', 'http', '--gateway-port', '47999', '--yes');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      '--gateway-port 47999: a Warden core is running and clients are pointed at its gateway, which is not running',
    );
    expect(await readFile(configPath, 'utf8')).toBe(original);
  });
});
