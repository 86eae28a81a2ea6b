/**
 * A served instance ended by its wall-time limit is a limit, not a crash: the supervisor audits
 * `limit.hit` and does not restart it, through the same launcher the core uses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok } from '../../app/result';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { createSandboxLauncher } from '../../main/supervisor/sandbox-launcher';
import { hostileSetup } from '../helpers/hostile-sessions';

let dir: string;
beforeAll(async () => {
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
  const compiles = { count: 0 };
  const { server, events, supervisor, open } = hostileSetup({
    dir,
    launcher: createSandboxLauncher({
      backend: timedBackend(compiles),
      hostEnv: process.env,
      resolveSecrets: () => Promise.resolve(ok({})),
    }),
  });
  server.policy.limits.wallSeconds = 1;
  const { session } = await open();
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
