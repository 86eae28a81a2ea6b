/**
 * The three flows (policy, grants, audit) in the Electron app through `_electron.launch`, on the
 * same real sandboxed servers as in Chromium, where the Electron binary exists. Where it does not
 * (its install script, which downloads it, was skipped here), each test is reported skipped with
 * the reason instead of passing without having run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElectronApplication } from '@playwright/test';
import { builtElectron } from './electron-app';
import { expect, homeAccess, processEnv, seedUnconfirmedServer, test } from './fixtures';
import { SECRET, auditFlow } from './flows/audit-flow';
import type { FlowApp } from './flows/flow-app';
import { grantsFlow } from './flows/grants-flow';
import { startHttpTarget } from './flows/http-targets';
import { policyFlow } from './flows/policy-flow';

/** Launches the app on a fresh WARDEN_HOME seeded with `seed`; runs `flow`; cleans up. */
async function withElectron(
  testInfo: FlowApp['testInfo'],
  seed: string[][],
  flow: (app: FlowApp) => Promise<void>,
): Promise<void> {
  const launch = builtElectron();
  if (!launch) return;
  const home = await mkdtemp(join(tmpdir(), 'warden-electron-'));
  for (const args of seed) await seedUnconfirmedServer(home, args);
  const env = { ...processEnv(), WARDEN_HOME: home, WARDEN_GATEWAY_PORT: '0' };
  const clients: Client[] = [];
  let app: ElectronApplication | undefined;
  try {
    app = await launch(env);
    const page = await app.firstWindow();
    await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
    await flow({ page, home, testInfo, ...homeAccess(home, env, clients) });
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await app?.close();
    await rm(home, { recursive: true, force: true });
  }
}

test('electron flow 1: policy editor', async ({ netToolBundle }, testInfo) => {
  await withElectron(testInfo, [], (app) => policyFlow(app, netToolBundle));
});

test('electron flow 2: grants in the inbox', async ({ netToolBundle }, testInfo) => {
  test.setTimeout(120_000);
  const [a, b] = [await startHttpTarget(), await startHttpTarget()];
  try {
    const seed = ['net', '--net', 'ask', '--allow-address', '127.0.0.1', '--ro'];
    await withElectron(
      testInfo,
      [[...seed, dirname(netToolBundle), '--', process.execPath, netToolBundle]],
      (app) => grantsFlow(app, a, b),
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('electron flow 3: live audit log', async ({ netToolBundle }, testInfo) => {
  const seed = ['calls', '--set-env', `API_TOKEN=${SECRET}`, '--ro', dirname(netToolBundle)];
  await withElectron(testInfo, [[...seed, '--', process.execPath, netToolBundle]], auditFlow);
});
