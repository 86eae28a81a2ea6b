/**
 * A tool's pinned definition can be forgotten, and only that: the rest of the policy stays, and
 * the change is recorded as a policy change of the server. Nothing else may change a pin through
 * the contract (update-keeps-pins.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { pinTools, unpinTool } from '../../app/policy/policy-edits';
import { createCore } from '../../main/core/core';

it('forgets one pinned definition, records it, and says when there was none', async () => {
  const home = await mkdtemp(join(tmpdir(), 'warden-forget-'));
  onTestFinished(() => rm(home, { recursive: true, force: true }));
  const core = await createCore({ wardenHome: home, log: () => undefined });
  onTestFinished(() => core.close());
  const read = { name: 'read', description: 'reads files' };
  const gone = { name: 'gone', description: 'the server no longer offers it' };
  const policy = { ...pinTools(defaultPolicy(), { read, gone }), idleTimeoutSeconds: 60 };
  await core.config.addServer({ name: 'p', launch: { command: 'true', args: [] }, policy });
  const before = core.config.getServer('p')!.revision;

  expect(await core.handle('tools.forget', { server: 'p', tool: 'gone' })).toEqual({
    ok: true,
    value: { forgotten: true },
  });
  const after = core.config.getServer('p')!;
  expect(after.policy.tools.pinned).toEqual({ read });
  expect(after.policy.idleTimeoutSeconds).toBe(60);
  expect(after.revision).toBe(before + 1);
  await core.audit.flush();
  const rows = (await core.audit.query({ kind: 'policy.changed' })).rows;
  // Newest first: the forgetting, then the adding.
  expect(rows).toHaveLength(2);
  expect(rows[0]?.event).toMatchObject({
    server: 'p',
    revisionBefore: before,
    revisionAfter: before + 1,
    changed: ['policy.tools.pinned.gone'],
  });

  // Again, or a tool never pinned: nothing to forget, nothing written.
  expect(await core.handle('tools.forget', { server: 'p', tool: 'gone' })).toEqual({
    ok: true,
    value: { forgotten: false },
  });
  expect(await core.handle('tools.forget', { server: 'p', tool: 'constructor' })).toEqual({
    ok: true,
    value: { forgotten: false },
  });
  expect(core.config.getServer('p')!.revision).toBe(before + 1);
  expect(await core.handle('tools.forget', { server: 'nobody', tool: 'read' })).toMatchObject({
    ok: false,
    error: { kind: 'not-found' },
  });
  expect(await core.handle('tools.forget', { server: 'p', tool: '' })).toMatchObject({
    ok: false,
    error: { kind: 'invalid-input' },
  });
});

it('reads again when another change lands between its read and its write', async () => {
  const home = await mkdtemp(join(tmpdir(), 'warden-forget-race-'));
  onTestFinished(() => rm(home, { recursive: true, force: true }));
  const core = await createCore({ wardenHome: home, log: () => undefined });
  onTestFinished(() => core.close());
  const def = (name: string) => ({ name, description: name });
  const policy = pinTools(defaultPolicy(), { read: def('read'), gone: def('gone') });
  await core.config.addServer({ name: 'p', launch: { command: 'true', args: [] }, policy });
  // Before the forgetting is written, a listing pins a new tool (first race), then another
  // process forgets `gone` itself (second race): the answer follows what is stored by then.
  const update = core.config.updateServer.bind(core.config);
  const races = [
    (s: { policy: typeof policy }) => ({ policy: pinTools(s.policy, { fresh: def('fresh') }) }),
    (s: { policy: typeof policy }) => ({ policy: unpinTool(s.policy, 'gone') }),
  ];
  core.config.updateServer = async (name, change, expected) => {
    const race = races.shift();
    if (race) await update(name, race);
    return update(name, change, expected);
  };
  expect(await core.handle('tools.forget', { server: 'p', tool: 'gone' })).toEqual({
    ok: true,
    value: { forgotten: false },
  });
  expect(Object.keys(core.config.getServer('p')!.policy.tools.pinned).sort()).toEqual([
    'fresh',
    'read',
  ]);
  expect(races).toEqual([]);
});
