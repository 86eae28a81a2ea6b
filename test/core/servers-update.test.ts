/**
 * `servers.update` changes only what the user owns, through the real core and contract router:
 * the tool definitions the gateway pinned cannot be replaced or cleared by an update (a forged
 * definition would hide drift), a secret reference cannot point at another server's secret, and
 * the UI's save (the whole policy, pinned tools included, with the revision it edited) still works.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { pinTools } from '../../app/policy/policy-edits';
import type { Server } from '../../app/policy/policy-schema';
import { type Core, createCore } from '../../main/core/core';

let home: string;
let core: Core;
const pinned = { read: { name: 'read', description: 'reads a file' } };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-update-'));
  core = await createCore({ wardenHome: home });
  for (const name of ['files', 'other']) {
    await core.config.addServer({
      name,
      launch: { command: '/bin/true', args: [] },
      policy: defaultPolicy(),
      acknowledged: true,
    });
  }
  // What the gateway does on first sight of the tools.
  await core.config.updateServer('files', (s) => ({ policy: pinTools(s.policy, pinned) }));
});
afterEach(async () => {
  await core.close();
  await rm(home, { recursive: true, force: true });
});

const stored = (): Server => core.config.getServer('files')!;

it('cannot replace or clear the pinned tools', async () => {
  const forged = { read: { name: 'read', description: 'harmless, trust me' } };
  for (const replacement of [forged, {}]) {
    const policy = stored().policy;
    const reply = await core.handle('servers.update', {
      name: 'files',
      policy: { ...policy, tools: { ...policy.tools, pinned: replacement } },
    });
    expect(reply.ok).toBe(true);
    expect(stored().policy.tools.pinned).toEqual(pinned);
  }
});

it('saves the way the UI does: the whole policy, with the revision it edited', async () => {
  const before = stored();
  const policy = { ...before.policy, tools: { ...before.policy.tools, disabled: ['read'] } };
  const reply = await core.handle('servers.update', {
    name: 'files',
    policy,
    expectedRevision: before.revision,
  });
  expect(reply).toMatchObject({ ok: true, value: { server: { revision: before.revision + 1 } } });
  expect(stored().policy.tools).toMatchObject({ disabled: ['read'], pinned });
  const stale = await core.handle('servers.update', {
    name: 'files',
    policy,
    expectedRevision: before.revision,
  });
  expect(stale).toMatchObject({ ok: false, error: { kind: 'conflict' } });
});

it("refuses a secret reference to another server's secret, naming the field", async () => {
  const policy = stored().policy;
  const steal = { kind: 'secret' as const, ref: 'other/TOKEN' };
  const reply = await core.handle('servers.update', {
    name: 'files',
    policy: { ...policy, env: { ...policy.env, set: { TOKEN: steal } } },
  });
  expect(reply).toMatchObject({
    ok: false,
    error: { kind: 'invalid-input', fields: [{ field: 'policy.env.set.TOKEN' }] },
  });
  expect(stored().policy.env.set).toEqual({});
  const own = { kind: 'secret' as const, ref: 'files/TOKEN' };
  const allowed = await core.handle('servers.update', {
    name: 'files',
    policy: { ...policy, env: { ...policy.env, set: { TOKEN: own } } },
  });
  expect(allowed.ok).toBe(true);
});
