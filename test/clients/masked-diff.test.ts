/**
 * `clients connect` shows what it will change without showing secrets: the client's own values
 * (a GitHub token in an entry's env) and the bearer token Warden writes for HTTP are masked in
 * the diff, in the CLI and in what the contract gives the UI, the same way import masks them.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClientsCommand, runImportCommand } from '../../main/clients/clients-cli';
import type { ClientsContext } from '../../main/clients/clients-context';
import { createClientsHandlers } from '../../main/clients/clients-handlers';
import { clientsContext } from '../../main/clients/clients-context';
import { type Core, createCore } from '../../main/core/core';
import { fakeHomeOverrides, fixturesDir, placeClaudeConfig } from './clients-fixture';
import { tempDirEach } from '../helpers/temp-dir';
import { captureIo } from '../helpers/capture-io';

const GITHUB_TOKEN = 'ghp_exampleexampleexampleexample0000';
let root = '';
let core: Core;
let overrides: Partial<ClientsContext>;

tempDirEach('warden-masked-', (d) => (root = d));
beforeEach(async () => {
  const home = join(root, 'home');
  core = await createCore({ wardenHome: join(root, 'warden') });
  overrides = {
    ...fakeHomeOverrides(home),
    // The gateway port is taken to be Warden's; squatting is tested in gateway-squat.test.ts.
    gatewayCheck: () => Promise.resolve({ kind: 'warden', port: 47821 }),
  };
  await placeClaudeConfig(home);
  await mkdir(join(home, '.cursor'), { recursive: true });
  await copyFile(join(fixturesDir, 'cursor/mcp.json.fixture'), join(home, '.cursor', 'mcp.json'));
});
afterEach(async () => {
  await core.close();
});

describe('clients connect masks secrets', () => {
  it("masks the client's own token in the CLI diff, before and after connecting", async () => {
    await runImportCommand(['claude-desktop', '--yes'], captureIo().io, core, overrides);
    const dry = captureIo();
    expect(
      await runClientsCommand(['connect', 'claude-desktop', '--dry-run'], dry.io, core, overrides),
    ).toBe(0);
    expect(dry.out.stdout).toContain('-        "GITHUB_PERSONAL_ACCESS_TOKEN": "••••••"');
    expect(dry.out.stdout).not.toContain(GITHUB_TOKEN);
    const done = captureIo();
    expect(
      await runClientsCommand(['connect', 'claude-desktop', '--yes'], done.io, core, overrides),
    ).toBe(0);
    expect(done.out.stdout).not.toContain(GITHUB_TOKEN);
  });

  it('masks the bearer token written for HTTP, in the CLI and in the contract preview', async () => {
    await runImportCommand(['cursor', '--yes'], captureIo().io, core, overrides);
    const dry = captureIo();
    expect(
      await runClientsCommand(
        ['connect', 'cursor', '--transport', 'http', '--dry-run'],
        dry.io,
        core,
        overrides,
      ),
    ).toBe(0);
    expect(dry.out.stdout).toContain('"Authorization": "••••••"');
    expect(dry.out.stdout).not.toMatch(/Bearer [A-Za-z0-9_-]{16,}/);

    const handlers = createClientsHandlers(
      clientsContext({
        wardenHome: core.wardenHome,
        config: core.config,
        ...overrides,
      } as Parameters<typeof clientsContext>[0]),
    );
    const desktop = await handlers['clients.connectPreview']({
      client: 'claude-desktop',
      transport: 'stdio',
    });
    expect(desktop.ok).toBe(true);
    if (desktop.ok) expect(JSON.stringify(desktop.value)).not.toContain(GITHUB_TOKEN);
    const cursor = await handlers['clients.connectPreview']({
      client: 'cursor',
      transport: 'http',
    });
    expect(cursor.ok).toBe(true);
    if (cursor.ok) expect(JSON.stringify(cursor.value)).not.toMatch(/Bearer [A-Za-z0-9_-]{16,}/);
    const written = await readFile(join(root, 'home', '.cursor', 'mcp.json'), 'utf8');
    expect(written).not.toContain('Bearer');
  });
});
