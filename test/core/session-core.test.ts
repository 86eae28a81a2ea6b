/**
 * A core that only relays one `warden connect` session does not probe the host before its first
 * launch, and loads its contract operations only when one is called; neither changes what it
 * answers once asked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../main/core/core';
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
});
