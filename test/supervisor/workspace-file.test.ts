/**
 * A served instance whose server creates a workspace file in a writable folder (where the Linux
 * sandbox cannot keep one from being created) is stopped at once, not restarted, and failed with
 * why; the file is moved aside and each is audited as a refusal, through the launcher the core
 * uses. (test/sandbox/escape-workspace-new.test.ts tries the same for real inside the sandbox.)
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok } from '../../app/result';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { createSandboxLauncher } from '../../main/supervisor/sandbox-launcher';
import { hostileSetup } from '../helpers/hostile-sessions';

let dir: string;
let project: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-wsfile-'));
  project = join(dir, 'project');
  await mkdir(join(project, 'src'), { recursive: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A backend that runs the server plainly with a watch over `project`, as bwrap's plan has, and
 * makes a `.vscode` there half a second after the server starts.
 */
function plantingBackend(compiles: { count: number }): SandboxBackend {
  return {
    name: 'bwrap',
    probe: () => unsandboxedBackend().probe(),
    checkRoot: (path) => Promise.resolve(ok(path)),
    compile: (_, launch) => {
      compiles.count++;
      const server = [launch.command, ...launch.args].map((a) => `'${a}'`).join(' ');
      return Promise.resolve(
        ok({
          argv: ['/bin/sh', '-c', `(sleep 0.5; mkdir '${project}/src/.vscode') & exec ${server}`],
          env: { PATH: '/usr/bin:/bin' },
          fdData: [],
          backend: 'bwrap',
          enforcedLimits: {},
          workspaceWatch: {
            roots: [project],
            names: ['.git', '.vscode'],
            kept: [],
            masked: [],
            dangling: [],
            absent: [],
          },
        }),
      );
    },
  };
}

it('stops, fails and audits an instance whose server creates a workspace file', async () => {
  const compiles = { count: 0 };
  const { events, supervisor, open } = hostileSetup({
    dir,
    launcher: createSandboxLauncher({
      backend: plantingBackend(compiles),
      hostEnv: process.env,
      resolveSecrets: () => Promise.resolve(ok({})),
    }),
  });
  const { session } = await open();
  await expect.poll(() => session.view().state.kind, { timeout: 15_000 }).toBe('failed');
  const state = session.view().state;
  expect('reason' in state ? state.reason : '').toMatch(
    /stopped: it created .*src\/\.vscode, a workspace file.*moved aside to .*\.vscode\.moved-by-warden-/,
  );
  const refusal = events.find((e) => e.kind === 'sandbox.violation');
  expect(refusal).toMatchObject({
    outcome: 'refused',
    operation: 'create-workspace-file',
    target: join(project, 'src', '.vscode'),
  });
  expect(refusal && 'detail' in refusal ? refusal.detail : '').toMatch(/stopped; moved aside to /);
  expect(await readdir(join(project, 'src'))).toEqual([
    expect.stringMatching(/^\.vscode\.moved-by-warden-/),
  ]);
  // Longer than the first backoff (250 ms): a crash would have been relaunched by now.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(compiles.count).toBe(1);
  await supervisor.stopAll();
}, 30_000);
