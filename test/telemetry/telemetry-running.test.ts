/**
 * `warden telemetry set|off` with a core running (the app, `warden serve`) make the change in
 * that core: the header values go to the store its export reads (the app's is the OS keychain),
 * not to the unencrypted file of a headless core, which the app never reads.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTelemetryCommand } from '../../main/telemetry/telemetry-command';
import { captureIo } from '../helpers/capture-io';
import { type RunningCore, startRunningCore } from '../helpers/running-core';

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
});
