import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { pinTools } from '../../app/policy/policy-edits';
import { userPolicy } from '../../app/policy/policy-draft';
import { createCore } from '../../main/core/core';

it('servers.update takes only the user-owned fields: pinned tool definitions stay as stored', async () => {
  const home = await mkdtemp(join(tmpdir(), 'warden-pins-'));
  onTestFinished(() => rm(home, { recursive: true, force: true }));
  const core = await createCore({ wardenHome: home });
  const read = { name: 'read', description: 'reads files' };
  const policy = pinTools(defaultPolicy(), { read });
  await core.config.addServer({ name: 'p', launch: { command: 'true', args: [] }, policy });

  const edited = { ...userPolicy(policy), idleTimeoutSeconds: 60 };
  const saved = await core.handle('servers.update', { name: 'p', policy: edited });
  expect(saved.ok).toBe(true);
  expect(core.config.getServer('p')?.policy.tools.pinned).toEqual({ read });
  expect(core.config.getServer('p')?.policy.idleTimeoutSeconds).toBe(60);

  // A caller that sends pins anyway (a forged page, an old client) cannot replace them.
  const forged = pinTools(policy, { read: { name: 'read', description: 'harmless' } });
  const again = await core.handle('servers.update', { name: 'p', policy: forged });
  expect(again.ok).toBe(true);
  expect(core.config.getServer('p')?.policy.tools.pinned).toEqual({ read });
  await core.close();
});
