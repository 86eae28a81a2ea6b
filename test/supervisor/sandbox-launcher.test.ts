import { describe, expect, it } from 'vitest';
import { auditEventSchema } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import { defaultPolicy } from '../../app/policy/defaults';
import { launchError, secretUnreadable } from '../../app/contract/launch-error';
import type { Server } from '../../app/policy/policy-schema';
import { err, ok } from '../../app/result';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { createSandboxLauncher } from '../../main/supervisor/sandbox-launcher';
import { launchEvent } from '../../main/supervisor/session-events';

const server: Server = {
  name: 's',
  launch: { command: '/bin/sh', args: ['-c', 'echo hi; sleep 5'] },
  policy: defaultPolicy(),
  revision: 1,
  createdAt: '',
  updatedAt: '',
  acknowledged: true,
};

function fakeBackend(name: string): SandboxBackend {
  return {
    name,
    probe: () => unsandboxedBackend().probe(),
    checkRoot: (path) => Promise.resolve(ok(path)),
    compile: (_p, launch) =>
      Promise.resolve(
        ok({
          argv: [launch.command, ...launch.args],
          env: { PATH: '/usr/bin:/bin' },
          fdData: [],
          backend: name,
          enforcedLimits: {},
        }),
      ),
  };
}

describe('sandbox launcher', () => {
  it("names in the launch's row the workspace files the sandbox keeps, the first 32", async () => {
    const deep = `/p/${'d/'.repeat(2000)}.git`;
    const kept = [...Array.from({ length: 39 }, (_, i) => `/p/r${i}/.git`), deep];
    const backend = fakeBackend('bwrap');
    const launcher = createSandboxLauncher({
      backend: {
        ...backend,
        compile: async (...args) => {
          const plan = await backend.compile(...args);
          return plan.ok
            ? ok({ ...plan.value, workspaceKept: kept, closedFolders: ['/p', '/p/r0'] })
            : plan;
        },
      },
      hostEnv: process.env,
      resolveSecrets: () => Promise.resolve(ok({})),
    });
    const launched = await launcher.launch({ server, instanceId: 'i', instanceDir: '/tmp' });
    if (!launched.ok) throw new Error('launch failed');
    await launched.value.process.stop();
    const row = auditEventSchema.parse({
      ...launchEvent(server, 'i', launched.value),
      ts: new Date().toISOString(),
    });
    expect(row).toMatchObject({ workspaceKept: kept.slice(0, 32), workspaceKeptCount: 40 });
    // A server that may write the folder chooses how deep a repository lies: a path keeps its end.
    const one = launchEvent(server, 'i', { ...launched.value, workspaceKept: [deep] });
    expect(one).toMatchObject({ workspaceKept: [`…${deep.slice(-255)}`] });
    expect(JSON.stringify(one).length).toBeLessThan(1000);
    expect(auditEventText(row)).toContain('kept read-only: /p/r0/.git, /p/r1/.git,');
    expect(auditEventText(row)).toContain('/p/r31/.git (+8 more)');
    expect(row).toMatchObject({ closedFolders: ['/p', '/p/r0'], closedFoldersCount: 2 });
    expect(auditEventText(row)).toContain('no new entries in: /p, /p/r0');
  });

  it('watches a running sandbox for refusals and stops watching when it exits', async () => {
    const events: string[] = [];
    const launcher = createSandboxLauncher({
      backend: fakeBackend('seatbelt'),
      hostEnv: process.env,
      resolveSecrets: () => Promise.resolve(ok({})),
      watch: (_request, plan) => {
        events.push(`watch ${plan.backend}`);
        return () => events.push('unwatch');
      },
    });
    const launched = await launcher.launch({ server, instanceId: 'i', instanceDir: '/tmp' });
    if (!launched.ok) throw new Error('launch failed');
    expect(events).toEqual(['watch seatbelt']);
    await launched.value.process.stop();
    await expect.poll(() => events).toEqual(['watch seatbelt', 'unwatch']);
  });

  it('refuses, never spawns, when the backend cannot enforce the policy or a secret is missing', async () => {
    const refusing: SandboxBackend = {
      ...fakeBackend('bwrap'),
      compile: () =>
        Promise.resolve(err(launchError('bwrap-missing', 'no bwrap', 'install bubblewrap'))),
    };
    const base = { hostEnv: process.env };
    const noBwrap = createSandboxLauncher({
      ...base,
      backend: refusing,
      resolveSecrets: () => Promise.resolve(ok({})),
    });
    expect(await noBwrap.launch({ server, instanceId: 'i', instanceDir: '/tmp' })).toMatchObject({
      ok: false,
      error: { kind: 'bwrap-missing', message: 'no bwrap' },
    });
    const noSecret = createSandboxLauncher({
      ...base,
      backend: fakeBackend('bwrap'),
      resolveSecrets: () => Promise.resolve(err(secretUnreadable('TOKEN'))),
    });
    expect(await noSecret.launch({ server, instanceId: 'i', instanceDir: '/tmp' })).toMatchObject({
      ok: false,
      error: {
        kind: 'secret-unreadable',
        variable: 'TOKEN',
        message: 'the secret for TOKEN is not set',
      },
    });
  });
});
