/**
 * A server's exceptions to the guards go through one door whoever asks: the control panel's
 * `servers.update` and `warden servers edit` get the same answers. With a managed policy that
 * hides ~/work/secrets, showing it to a server is refused naming the rule from both; a workspace
 * file exception saved through the contract is what the CLI shows, effective policy included;
 * a name that is not a workspace file is refused by both, the contract with a field error.
 * Where the managed policy allows no workspace file exception, both refuse one naming the rule,
 * and a server that had one before the rule came is refused its launch.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerView } from '../../app/contract/servers';
import { exceptHiddenPath, exceptWorkspaceFile } from '../../app/policy/policy-edits';
import type { Policy } from '../../app/policy/policy-schema';
import { managedHomeEach } from '../helpers/managed-home';

const h = managedHomeEach('warden-exceptions-', { hiddenPaths: ['~/work/secrets'] });
const { cli, openCore } = h;

describe('guard exceptions, from the CLI and the contract alike', () => {
  it('refuses to show a managed hidden path, and saves a workspace file exception', async () => {
    const folder = join(h.base, 'project');
    await mkdir(folder);
    expect(await cli('servers', 'add', 'git', '--rw', folder, '--', 'true')).toBe(0);
    const rule = 'managed hiddenPaths "~/work/secrets"';
    expect(await cli('servers', 'edit', 'git', '--unhide', '~/work/secrets')).toBe(2);
    expect(h.errs).toContain(rule);
    expect(await cli('servers', 'edit', 'git', '--unprotect', 'node_modules')).toBe(2);

    const core = await openCore();
    try {
      const view = (await core.handle('servers.get', { name: 'git' })) as {
        ok: true;
        value: ServerView;
      };
      const update = (policy: Policy) =>
        core.handle('servers.update', {
          name: 'git',
          policy,
          expectedRevision: view.value.server.revision,
        });
      const stored = view.value.server.policy;
      // Spelled as the CLI would not (it drops the slash), it is refused all the same.
      for (const path of ['~/work/secrets', '~/work/secrets/'])
        expect(await update(exceptHiddenPath(stored, path, true))).toMatchObject({
          ok: false,
          error: { kind: 'policy-forbidden', rule },
        });
      const unknown = { ...stored, guards: { hide: [], unhide: [], unprotect: ['node_modules'] } };
      expect(await update(unknown as Policy)).toMatchObject({
        ok: false,
        error: { kind: 'invalid-input', fields: [{ field: 'policy.guards.unprotect[0]' }] },
      });
      const saved = await update(exceptWorkspaceFile(stored, '.git', true));
      expect(saved.ok).toBe(true);
    } finally {
      await core.close();
    }

    h.out = '';
    expect(await cli('servers', 'show', 'git', '--json')).toBe(0);
    const shown = JSON.parse(h.out) as { server: { policy: Policy } };
    expect(shown.server.policy.guards).toEqual({ hide: [], unhide: [], unprotect: ['.git'] });
    h.out = '';
    expect(await cli('servers', 'show', 'git', '--effective')).toBe(0);
    expect(h.out).toMatch(/write \(exception\) +\.git +\[server\] +EXCEPTION/);
    // Taken back from the CLI, nothing is left of the guards: as if never excepted.
    expect(await cli('servers', 'edit', 'git', '--protect', '.git')).toBe(0);
    h.out = '';
    expect(await cli('servers', 'show', 'git', '--json')).toBe(0);
    expect((JSON.parse(h.out) as { server: { policy: Policy } }).server.policy.guards).toBe(
      undefined,
    );
  });
});

describe('where the managed policy allows no workspace file exception', () => {
  it('the CLI and the contract refuse one, and a server that has one is not launched', async () => {
    const folder = join(h.base, 'project');
    await mkdir(folder);
    expect(await cli('servers', 'add', 'git', '--rw', folder, '--', 'true')).toBe(0);
    expect(await cli('servers', 'edit', 'git', '--unprotect', '.git')).toBe(0);
    const rule = 'managed workspace.allowExceptions=false';
    await writeFile(h.managed, JSON.stringify({ workspace: { allowExceptions: false } }));
    expect(await cli('servers', 'edit', 'git', '--unprotect', '.vscode')).toBe(2);
    expect(h.errs).toContain(rule);

    const core = await openCore();
    try {
      const view = (await core.handle('servers.get', { name: 'git' })) as {
        ok: true;
        value: ServerView;
      };
      const policy = exceptWorkspaceFile(view.value.server.policy, '.envrc', true);
      const expectedRevision = view.value.server.revision;
      expect(
        await core.handle('servers.update', { name: 'git', policy, expectedRevision }),
      ).toMatchObject({ ok: false, error: { kind: 'policy-forbidden', rule } });
      await core.handle('servers.acknowledge', { name: 'git' });
      const started = await core.handle('instances.start', { name: 'git' });
      expect(started).toMatchObject({
        ok: true,
        value: { state: { kind: 'failed', launchError: { kind: 'policy-forbidden' } } },
      });
      expect(JSON.stringify(started)).toContain(rule);
      expect(core.supervisor.list().filter((i) => i.state.kind === 'running')).toEqual([]);
    } finally {
      await core.close();
    }
    // Taking the exception back is a change the rule allows.
    expect(await cli('servers', 'edit', 'git', '--protect', '.git')).toBe(0);
  });
});
