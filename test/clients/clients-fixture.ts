/** Shared setup for the client import/connect tests: a temp Warden home, a fake user home and a copied fixture. */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigStore } from '../../main/config/config-store';
import { type ClientsContext, clientsContext } from '../../main/clients/clients-context';
import { headlessSecretStore } from '../../main/secrets/headless-secret-store';

export const fixturesDir = join(import.meta.dirname, 'fixtures');

export interface Sandbox {
  root: string;
  wardenHome: string;
  home: string;
  ctx: ClientsContext;
  /** Copies `fixture` (relative to fixtures/) to `target` (relative to the fake home). */
  place(fixture: string, target: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A fresh temp Warden home and user home with a clients context over them. */
export async function makeSandbox(overrides: Partial<ClientsContext> = {}): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), 'warden-clients-'));
  const wardenHome = join(root, 'warden');
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const config = await ConfigStore.open({ wardenHome });
  const ctx = clientsContext({
    wardenHome,
    config,
    locations: { home, platform: 'linux', env: { PATH: '/usr/bin:/bin' }, cwd: join(home, 'proj') },
    secrets: headlessSecretStore(wardenHome),
    warden: {
      command: '/opt/node/bin/node',
      args: ['/opt/warden/bin/warden.js'],
      env: { WARDEN_HOME: wardenHome },
    },
    now: () => new Date('2026-11-29T10:00:00Z'),
    // These tests are about the files; whether the gateway port is Warden's is gateway-squat's.
    gatewayCheck: () => Promise.resolve({ kind: 'warden', port: 47821 }),
    ...overrides,
  });
  return {
    root,
    wardenHome,
    home,
    ctx,
    place: async (fixture, target) => {
      const path = join(home, target);
      await mkdir(dirname(path), { recursive: true });
      await copyFile(join(fixturesDir, fixture), path);
      return path;
    },
    cleanup: async () => {
      await config.flush();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Clients-context overrides for CLI tests: a fake Linux user `home` and a fixed warden command. */
export function fakeHomeOverrides(home: string): Partial<ClientsContext> {
  return {
    locations: { home, platform: 'linux', env: { PATH: '/usr/bin' }, cwd: join(home, 'proj') },
    warden: { command: '/usr/bin/node', args: ['/opt/warden/bin/warden.js'], env: {} },
  };
}

/** Copies the Claude Desktop fixture to where Claude Desktop keeps its config under `home`. */
export async function placeClaudeConfig(home: string): Promise<string> {
  const path = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  await mkdir(dirname(path), { recursive: true });
  await copyFile(join(fixturesDir, 'claude-desktop/claude_desktop_config.json.fixture'), path);
  return path;
}
