/**
 * `warden telemetry set|off` with a core running (the app, `warden serve`) make the change in
 * that core: the header values go to the store its export reads (the app's is the OS keychain),
 * not to the unencrypted file of a headless core, which the app never reads.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TelemetryStatus } from '../../app/contract/telemetry';
import { createCore } from '../../main/core/core';
import { runTelemetryCommand } from '../../main/telemetry/telemetry-command';
import { captureIo } from '../helpers/capture-io';
import { type RunningCore, startRunningCore } from '../helpers/running-core';
import { startOtlpCollector } from './otlp-collector';

let running: RunningCore;
beforeAll(async () => {
  running = await startRunningCore('warden-telemetry-running-');
});
afterAll(() => running.close());

async function telemetry(...args: string[]) {
  const run = captureIo();
  const status = await runTelemetryCommand(args, run.io, running.wardenHome);
  return { status, ...run.out };
}

describe('warden telemetry with a core running', () => {
  it('set keeps the header value in its store, off forgets it', async () => {
    const set = await telemetry('set', '--endpoint', 'http://c.test', '--header', 'X-Key: k-9');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stderr).not.toContain('unencrypted');
    expect(running.core.config.telemetry()).toEqual({
      endpoint: 'http://c.test',
      headers: { 'X-Key': { ref: 'telemetry/header/x-key' } },
    });
    expect(await readFile(running.keychain, 'utf8')).toContain('k-9');
    expect(existsSync(join(running.wardenHome, 'secrets.json'))).toBe(false);
    const off = await telemetry('off');
    expect(off.status, off.stderr).toBe(0);
    expect(running.core.config.telemetry()).toBeUndefined();
    expect(await readFile(running.keychain, 'utf8')).not.toContain('k-9');
  });

  it('a refusal is the core’s, and stores nothing', async () => {
    const bad = await telemetry('set', '--endpoint', 'ftp://c.test', '--header', 'X-A: a-1');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('telemetry.endpoint');
    const injected = await telemetry(
      'set',
      '--endpoint',
      'http://c.test',
      '--header',
      'X-A: 1\r\nX: 2',
    );
    expect(injected.status).toBe(1);
    expect(injected.stderr).toContain('telemetry.headers');
    expect(await readFile(running.keychain, 'utf8').catch(() => '')).not.toContain('a-1');
  });

  it('the running core exports from the change on, and stops at off, without a restart', async () => {
    const collector = await startOtlpCollector();
    const { core } = running;
    const status = async () => {
      const got = await core.handle('telemetry.get', {});
      if (!got.ok) throw new Error(got.error.message);
      return got.value as TelemetryStatus;
    };
    const row = async (state: 'running' | 'stopped') => {
      core.audit.append({ kind: 'instance.lifecycle', outcome: 'info', server: 'x', state });
      await core.audit.flush();
    };
    try {
      expect(await status()).toEqual({ export: 'off' });
      const set = await telemetry(
        'set',
        '--endpoint',
        collector.endpoint,
        '--header',
        'X-Key: k-7',
      );
      expect(set.status, set.stderr).toBe(0);
      expect(set.stdout).toContain('the running Warden exports accordingly from now on');
      await vi.waitFor(async () => expect((await status()).export).toBe('on'));
      expect(await status()).toEqual({
        settings: { endpoint: collector.endpoint, headers: ['X-Key'] },
        export: 'on',
      });
      await row('running');
      await vi.waitFor(() => expect(collector.logRecords().length).toBeGreaterThan(0));
      expect(collector.posts.every((p) => p.headers['x-key'] === 'k-7')).toBe(true);
      // Where the log goes is a change the log records.
      await running.core.audit.flush();
      const changes = (await running.core.audit.query({ kind: 'policy.changed' })).rows
        .map((r) => r.event)
        .filter(
          (e) => e.kind === 'policy.changed' && e.changed.some((c) => c.startsWith('telemetry')),
        );
      expect(changes.at(-1)).toMatchObject({
        changed: ['telemetry.endpoint', 'telemetry.headers'],
      });

      expect((await telemetry('off')).status).toBe(0);
      expect(await status()).toEqual({ export: 'off' });
      await running.core.audit.flush();
      expect(
        (await running.core.audit.query({ kind: 'policy.changed' })).rows[0]?.event,
      ).toMatchObject({ kind: 'policy.changed', changed: ['telemetry'] });
      const sent = collector.posts.length;
      await row('stopped');
      await new Promise((done) => setTimeout(done, 300));
      expect(collector.posts.length).toBe(sent);
    } finally {
      await collector.close();
    }
  });

  it('a header whose value the core cannot read: set, but off, and why', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-telemetry-failed-'));
    try {
      const first = await createCore({ wardenHome: home });
      await first.config.setTelemetry({
        endpoint: 'http://127.0.0.1:9/',
        headers: { 'X-Gone': { ref: 'telemetry/header/x-gone' } },
      });
      await first.close();
      const core = await createCore({ wardenHome: home, log: () => undefined });
      await vi.waitFor(async () =>
        expect(await core.handle('telemetry.get', {})).toEqual({
          ok: true,
          value: {
            settings: { endpoint: 'http://127.0.0.1:9/', headers: ['X-Gone'] },
            export: 'failed',
            problem:
              'the value of header X-Gone is not in this secret store; set it again with warden telemetry set',
          },
        }),
      );
      await core.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
