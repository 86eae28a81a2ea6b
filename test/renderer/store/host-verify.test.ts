import { describe, expect, it } from 'vitest';
import type { DoctorReport, Verification } from '../../../app/contract/doctor';
import { createRootStore } from '../../../renderer/src/store/root-store';
import { fakeApi } from './fake-api';

const report: DoctorReport = {
  platform: 'linux',
  arch: 'x64',
  backend: { name: 'bwrap', available: true, version: '0.8.0' },
  checks: [],
  limits: {
    memoryMb: { enforced: true, how: 'cgroup' },
    pids: { enforced: true, how: 'cgroup' },
    cpuSeconds: { enforced: true, how: 'rlimit' },
    openFiles: { enforced: true, how: 'rlimit' },
    wallSeconds: { enforced: true, how: 'timer' },
  },
};
const failed: Verification = {
  backend: 'bwrap',
  at: '2026-01-01T00:00:00.000Z',
  passed: false,
  probes: [{ id: 'unix-socket', label: 'connect', status: 'escaped', detail: 'got it' }],
  host: { kernel: '6.18' },
};

describe('host slice: Verify now', () => {
  it('runs host.verify and shows the result in the host report, replacing the older one', async () => {
    const passed = { ...failed, passed: true, at: '2026-01-02T00:00:00.000Z' };
    const { api, calls } = fakeApi({
      'host.doctor': () => Promise.resolve({ ...report, verifications: [failed] }),
      'host.verify': () => Promise.resolve(passed),
    });
    const store = createRootStore(api);
    await store.getState().loadDoctor();
    const running = store.getState().verifyNow();
    expect(store.getState().verifying).toBe(true);
    await running;
    expect(calls.map((c) => c.op)).toContain('host.verify');
    expect(store.getState().verifying).toBe(false);
    expect(store.getState().doctor?.verifications).toEqual([passed]);
  });

  it('keeps the error with its remedy when the core refuses', async () => {
    const { api } = fakeApi({
      'host.verify': () => Promise.reject(new Error('no sandbox here')),
    });
    const store = createRootStore(api);
    await store.getState().verifyNow();
    expect(store.getState().verifyError?.message).toContain('no sandbox here');
    expect(store.getState().verifying).toBe(false);
  });
});
