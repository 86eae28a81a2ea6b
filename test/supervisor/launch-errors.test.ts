/**
 * A refused launch keeps its cause: an unreadable secret of a server whose isolation is off is a
 * `secret-unreadable` (not a sandbox problem), an invalid network pattern comes back with its field
 * errors, on every backend the missing secret maps to the same error, and the failed instance
 * carries the typed error for the UI.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchErrorRemedies } from '../../app/contract/launch-error';
import { defaultPolicy } from '../../app/policy/defaults';
import { ok } from '../../app/result';
import { startEgress } from '../../main/egress/start-egress';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { launchInstance } from '../../main/sandbox/launch-instance';
import { bwrapBackend } from '../../main/sandbox/linux/bwrap-backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';
import { createSandboxLauncher } from '../../main/supervisor/sandbox-launcher';
import { hostileSetup } from '../helpers/hostile-sessions';
import { usableHostFacts } from '../helpers/host-facts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-launch-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const withSecret = () => {
  const policy = defaultPolicy();
  policy.env.set = { TOKEN: { kind: 'secret', ref: 'srv/TOKEN' } };
  return policy;
};

describe('launch errors', () => {
  it('a missing secret with isolation off is secret-unreadable, not a sandbox problem', async () => {
    const { server, supervisor, open } = hostileSetup({
      dir,
      launcher: createSandboxLauncher({
        backend: unsandboxedBackend(),
        hostEnv: process.env,
        resolveSecrets: () => Promise.resolve(ok({})),
      }),
    });
    server.policy = { ...withSecret(), isolation: 'off' };
    const { session } = await open();
    await expect.poll(() => session.view().state.kind, { timeout: 10_000 }).toBe('failed');
    const state = session.view().state;
    if (state.kind !== 'failed') throw new Error(state.kind);
    expect(state.launchError).toEqual({
      kind: 'secret-unreadable',
      variable: 'TOKEN',
      message: 'the secret for TOKEN is not set',
      remedy: launchErrorRemedies['secret-unreadable'],
    });
    expect(state.reason).toMatch(/^the server could not be started: the secret for TOKEN/);
    expect(state.reason).not.toMatch(/sandbox/);
    await supervisor.stopAll();
  });

  it('maps a missing secret the same way on the bubblewrap backend', async () => {
    const launched = await launchInstance({
      policy: withSecret(),
      launch: { command: '/bin/true', args: [] },
      backend: bwrapBackend({ facts: usableHostFacts() }),
      instanceDir: dir,
      hostEnv: process.env,
      secrets: {},
    });
    expect(launched).toMatchObject({
      ok: false,
      error: { kind: 'secret-unreadable', variable: 'TOKEN' },
    });
  });

  it('refuses an invalid network pattern with its field errors kept, before compiling', async () => {
    let compiled = 0;
    const counting: SandboxBackend = {
      ...unsandboxedBackend(),
      name: 'bwrap',
      compile: () => {
        compiled++;
        return Promise.reject(new Error('must not compile'));
      },
    };
    const policy = defaultPolicy();
    // Past the schema (a hand-edited or older config reaching the launcher): still refused.
    policy.network = { ...policy.network, mode: 'allowlist', allow: ['ok.test', 'http://a.test/'] };
    const runtime = {
      nodePath: process.execPath,
      initScript: '/x/init.cjs',
      preloadScript: '/x/p.cjs',
      isElectron: false,
    };
    const launched = await launchInstance({
      policy,
      launch: { command: '/bin/true', args: [] },
      backend: counting,
      instanceDir: dir,
      hostEnv: process.env,
      secrets: {},
      egress: () =>
        Promise.resolve(
          startEgress({
            network: policy.network,
            server: 'srv',
            instanceId: 'i',
            runtime,
            onDecision: () => undefined,
          }),
        ),
    });
    expect(launched.ok).toBe(false);
    if (launched.ok) return;
    expect(launched.error.kind).toBe('invalid-network-policy');
    expect('fields' in launched.error && launched.error.fields).toEqual([
      expect.objectContaining({ field: 'network.allow[1]' }),
    ]);
    expect(compiled).toBe(0);
  });

  it('a cgroup that cannot be created refuses the launch as a limit that cannot be enforced, with a remedy about cgroups', async () => {
    const plain = unsandboxedBackend();
    const withGroup: SandboxBackend = {
      ...plain,
      name: 'bwrap',
      // A plain process's plan, with the cgroup folder a limit would need.
      compile: async (policy, launch, context) => {
        const plan = await plain.compile({ ...policy, isolation: 'off' }, launch, context);
        if (!plan.ok) return plan;
        return ok({ ...plan.value, createDirs: [join(dir, 'no-such-parent', 'warden-1')] });
      },
    };
    const launched = await launchInstance({
      policy: defaultPolicy(),
      launch: { command: '/bin/true', args: [] },
      backend: withGroup,
      instanceDir: dir,
      hostEnv: process.env,
      secrets: {},
    });
    expect(launched.ok).toBe(false);
    if (launched.ok) return;
    expect(launched.error.kind).toBe('limit-unsupported');
    expect(launched.error.message).toContain('could not set up the cgroup limits');
    expect(launched.error.remedy).toContain('cgroups');
  });
});
