/**
 * A served instance ended by its wall-time limit is a limit, not a crash: the supervisor audits
 * `limit.hit` and does not restart it, through the same launcher the core uses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditEventInput } from '../../app/audit/audit-event';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Server } from '../../app/policy/policy-schema';
import { ok } from '../../app/result';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { createSandboxLauncher } from '../../main/supervisor/sandbox-launcher';
import { Supervisor } from '../../main/supervisor/supervisor';
import { bundleForNode } from '../helpers/bundle';

let hostile: string;
let dir: string;
beforeAll(async () => {
  hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
  dir = await mkdtemp(join(tmpdir(), 'warden-wall-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A backend that runs the command plainly but, like bwrap's, turns wallSeconds into a timer. */
function timedBackend(compiles: { count: number }): SandboxBackend {
  return {
    name: 'bwrap',
    probe: () => unsandboxedBackend().probe(),
    checkRoot: (path) => Promise.resolve(ok(path)),
    compile: (policy, launch) => {
      compiles.count++;
      const wall = policy.limits.wallSeconds;
      return Promise.resolve(
        ok({
          argv: [launch.command, ...launch.args],
          env: { PATH: '/usr/bin:/bin' },
          fdData: [],
          backend: 'bwrap',
          enforcedLimits: {},
          ...(wall === undefined ? {} : { wallTimeMs: wall * 1000 }),
        }),
      );
    },
  };
}

it('audits limit.hit and does not restart an instance its wall-time limit ended', async () => {
  const server: Server = {
    name: 'timed',
    launch: { command: process.execPath, args: [hostile] },
    policy: defaultPolicy(),
    revision: 1,
    createdAt: '',
    updatedAt: '',
    acknowledged: true,
  };
  server.policy.limits.wallSeconds = 1;
  const events: AuditEventInput[] = [];
  const compiles = { count: 0 };
  const supervisor = new Supervisor({
    getServer: () => server,
    launcher: createSandboxLauncher({
      backend: timedBackend(compiles),
      hostEnv: process.env,
      resolveSecrets: () => Promise.resolve(ok({})),
    }),
    instancesDir: dir,
    audit: (e) => void events.push(e),
    redact: () => (v: unknown) => v,
    gate: () => ({ check: () => Promise.resolve({ allowed: true }) }) as never,
  });
  const [clientSide, sessionSide] = InMemoryTransport.createLinkedPair();
  const session = await supervisor.open('timed', sessionSide, 'test');
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  void client.connect(clientSide).catch(() => undefined);
  await expect
    .poll(() => events.some((e) => e.kind === 'limit.hit'), { timeout: 15_000 })
    .toBe(true);
  expect(events.find((e) => e.kind === 'limit.hit')).toMatchObject({ limit: 'wallSeconds' });
  await expect.poll(() => session.view().state.kind, { timeout: 5_000 }).toBe('exited');
  const state = session.view().state;
  expect('reason' in state ? state.reason : '').not.toMatch(/crash/);
  // Longer than the first backoff (250 ms): a crash would have been relaunched by now.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(compiles.count).toBe(1);
  expect(session.view().restarts).toBe(0);
  await supervisor.stopAll();
}, 30_000);
