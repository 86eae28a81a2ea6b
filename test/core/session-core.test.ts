/**
 * A core that only relays one `warden connect` session does not probe the host before its first
 * launch, and loads its contract operations only when one is called; neither changes what it
 * answers once asked. Its audit log opens when asked (after the launch), with nothing lost.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { createCore } from '../../main/core/core';
import { openAuditStore } from '../../main/audit/audit-store';
import type { SandboxBackend } from '../../main/sandbox/backend';
import { unsandboxedBackend } from '../../main/sandbox/unsandboxed';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-session-core-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The plain-process backend, counting its probes. */
function countingBackend(): SandboxBackend & { probes: number } {
  const inner = unsandboxedBackend();
  const backend = {
    ...inner,
    probes: 0,
    probe: () => {
      backend.probes++;
      return inner.probe();
    },
  };
  return backend;
}

describe('a session-only core', () => {
  it('does not probe the host at start, and claims nothing enforced until it has', async () => {
    const backend = countingBackend();
    const core = await createCore({ wardenHome: home, backend, probeHost: false });
    try {
      expect(backend.probes).toBe(0);
      const first = core.hostReport();
      expect(first.backend.available).toBe(false);
      expect(Object.values(first.limits).every((l) => !l.enforced)).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      expect(backend.probes).toBe(1);
      expect(core.hostReport()).toEqual(await unsandboxedBackend().probe());
    } finally {
      await core.close();
    }
  });

  it('answers contract operations, loading them on the first call', async () => {
    const backend = countingBackend();
    const core = await createCore({ wardenHome: home, backend });
    try {
      expect(backend.probes).toBe(1);
      const doctor = await core.handle('host.doctor', {});
      expect(doctor.ok).toBe(true);
      const unknown = await core.handle('no.such', {});
      expect(unknown).toMatchObject({ ok: false, error: { kind: 'invalid-input' } });
      const list = await core.handle('servers.list', {});
      expect(list).toEqual({ ok: true, value: [] });
    } finally {
      await core.close();
    }
  });

  it('opens its audit log only when asked, writing what was recorded before, in order', async () => {
    const core = await createCore({
      wardenHome: home,
      backend: unsandboxedBackend(),
      probeHost: false,
      deferAudit: true,
    });
    try {
      for (const name of ['a', 'b', 'c']) await addPlain(core.config, name);
      expect(existsSync(join(home, 'audit.db'))).toBe(false);
      expect(core.audit.pendingCount()).toBe(3);
      await core.openAudit();
      await addPlain(core.config, 'd');
      await core.audit.flush();
      const rows = (await core.audit.query({ limit: 10 })).rows.reverse();
      expect(rows.map((r) => [r.kind, r.server])).toEqual(
        ['a', 'b', 'c', 'd'].map((n) => ['policy.changed', n]),
      );
      expect(core.audit.verify()).toMatchObject({ ok: true, rows: 4 });
    } finally {
      await core.close();
    }
  });

  it('writes what it recorded on close even when its log was never opened', async () => {
    const core = await createCore({ wardenHome: home, probeHost: false, deferAudit: true });
    await addPlain(core.config, 'a');
    await core.close();
    const reopened = openAuditStore({ path: join(home, 'audit.db') });
    if (!reopened.ok) throw new Error(reopened.error.message);
    expect(reopened.value.verify()).toMatchObject({ ok: true, rows: 1 });
    await reopened.value.close();
  });
});

/** Adds a confirmed plain-process server (one policy.changed event). */
async function addPlain(
  config: Awaited<ReturnType<typeof createCore>>['config'],
  name: string,
): Promise<void> {
  const added = await config.addServer({
    name,
    launch: { command: '/bin/true', args: [] },
    policy: { ...defaultPolicy(), isolation: 'off' },
    acknowledged: true,
  });
  expect(added.ok).toBe(true);
}
