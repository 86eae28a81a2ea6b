/**
 * An instance started from the UI (held by Warden, no AI client): it is Ready once the server
 * answered initialize; a server that hangs is failed with that reason, not with "the client
 * disconnected"; a server that cannot start shows its telling stderr lines and the likely fix.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import type { Server } from '../../app/policy/policy-schema';
import { createToolGate } from '../../main/gateway/tool-gate';
import { DriftRegistry } from '../../main/gateway/tool-drift';
import { ApprovalInbox } from '../../main/gateway/approval-inbox';
import { Supervisor } from '../../main/supervisor/supervisor';
import { bundleForNode } from '../helpers/bundle';
import { plainLauncher } from '../helpers/plain-launcher';

let dir: string;
let hostile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-owned-'));
  hostile = await bundleForNode(join(import.meta.dirname, '../fixtures/hostile-server.ts'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
});

function supervisorFor(args: string[]) {
  const server: Server = {
    name: 's',
    launch: { command: process.execPath, args },
    policy: defaultPolicy(),
    revision: 1,
    createdAt: '',
    updatedAt: '',
    acknowledged: true,
  };
  const audit = () => undefined;
  const supervisor = new Supervisor({
    getServer: () => server,
    launcher: plainLauncher(),
    instancesDir: dir,
    audit,
    redact: () => (v: unknown) => v,
    ownedStartTimeoutMs: 1000,
    gate: (name, instance) =>
      createToolGate({
        server: name,
        instance,
        policy: () => server.policy.tools,
        pin: () => Promise.resolve(),
        drift: new DriftRegistry(),
        approvals: new ApprovalInbox(audit),
        audit,
        redact: (v: unknown) => v,
      }),
  });
  stops.push(() => supervisor.stopAll());
  return supervisor;
}

it('is Ready only once the server answered initialize', async () => {
  const supervisor = supervisorFor([hostile]);
  const session = await supervisor.startOwned('s');
  await expect.poll(() => session.view().ready).toBe(true);
  expect(session.view().state.kind).toBe('running');
});

it('fails a server that never answers initialize with that reason, not "the client disconnected"', async () => {
  const supervisor = supervisorFor([
    '-e',
    "console.error('npm ERR! network request to https://registry.npmjs.org failed'); setInterval(() => {}, 1000)",
  ]);
  const session = await supervisor.startOwned('s');
  await expect.poll(() => supervisor.list()[0]?.state.kind, { timeout: 10_000 }).toBe('failed');
  const view = supervisor.list()[0]!;
  const reason = view.state.kind === 'failed' ? view.state.reason : '';
  expect(reason).toContain("did not answer MCP's initialize within 1 s");
  expect(reason).toContain('npm ERR! network request');
  expect(reason).not.toContain('client disconnected');
  expect(view.ready).toBe(false);
  expect(session.id).toBe(view.id);
});

it('shows the first error line of a server that cannot start, and the folder to add', async () => {
  const project = join(dir, 'project');
  await mkdir(project, { recursive: true });
  // Node's own words for a script it cannot see (as in a sandbox that lacks its folder).
  const script = join(project, 'server.js');
  const supervisor = supervisorFor([script]);
  await supervisor.startOwned('s');
  await expect
    .poll(() => supervisor.list()[0]?.failure?.hint, { timeout: 15_000 })
    .toEqual({
      kind: 'add-folder',
      path: `${project}/server.js`,
      folder: project,
    });
  const failure = supervisor.list()[0]!.failure!;
  expect(failure.lines[0]).toBe(`Error: Cannot find module '${project}/server.js'`);
  expect(failure.lines).not.toContainEqual(expect.stringMatching(/^Node\.js v/));
});
