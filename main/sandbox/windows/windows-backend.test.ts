import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../app/policy/defaults';
import type { Server } from '../../../app/policy/policy-schema';
import { isolationView } from '../../core/server-views';
import { windowsBackend, windowsRemedy } from './windows-backend';

const launch = { command: 'C:\\tools\\server.exe', args: ['--stdio'] };
const ctx = {
  instanceDir: 'C:\\Users\\ada\\AppData\\Local\\Temp\\warden-1',
  hostEnv: { Path: 'C:\\Windows\\system32', SYSTEMROOT: 'C:\\Windows', API_TOKEN: 'leak' },
  secrets: {},
};

function server(isolation: 'sandbox' | 'off'): Server {
  const policy = defaultPolicy();
  policy.isolation = isolation;
  return {
    name: 'files',
    launch,
    policy,
    revision: 1,
    createdAt: '2026-11-29T00:00:00.000Z',
    updatedAt: '2026-11-29T00:00:00.000Z',
    acknowledged: true,
  };
}

describe('Windows backend', () => {
  it('refuses every sandboxed launch with unsupported-platform and a remedy', async () => {
    const plan = await windowsBackend().compile(defaultPolicy(), launch, ctx);
    expect(plan).toEqual({
      ok: false,
      error: {
        kind: 'unsupported-platform',
        message: expect.stringContaining('no sandbox for Windows') as string,
        remedy: windowsRemedy,
      },
    });
    expect(windowsRemedy).toMatch(/WSL/);
    expect(windowsRemedy).toMatch(/"off" knowingly/);
  });

  it('reports the backend as unavailable, so the UI marks each sandboxed server', async () => {
    const report = await windowsBackend().probe();
    expect(report.backend).toEqual({ name: 'windows', available: false });
    expect(Object.values(report.limits).every((l) => !l.enforced)).toBe(true);
    expect(isolationView(server('sandbox'), report)).toEqual({
      kind: 'unavailable',
      reason: expect.stringContaining('cannot start here') as string,
      remedy: windowsRemedy,
    });
    expect(isolationView(server('off'), report)).toEqual({ kind: 'off' });
  });

  it('still launches a server whose isolation is off, with only the base environment', async () => {
    const policy = defaultPolicy();
    policy.isolation = 'off';
    const plan = await windowsBackend().compile(policy, launch, ctx);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.backend).toBe('none');
    expect(plan.value.argv).toEqual(['C:\\tools\\server.exe', '--stdio']);
    expect(plan.value.env).toEqual({ PATH: 'C:\\Windows\\system32', SystemRoot: 'C:\\Windows' });
  });
});
