import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpCollector } from '../../test/telemetry/otlp-collector';
import { createCore } from '../core/core';
import { runTelemetryCommand } from './telemetry-command';

let home = '';
let out = '';
let errs = '';
const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (errs += s) };
const run = (...args: string[]) => runTelemetryCommand(args, io, home);
const saved = async () =>
  (JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as { telemetry?: unknown })
    .telemetry;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-telemetry-'));
  out = errs = '';
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('warden telemetry', () => {
  it('set stores the endpoint and headers, show names the headers without their values, off removes it', async () => {
    expect(
      await run('set', '--endpoint', 'http://127.0.0.1:4318', '--header', 'X-Key: k-123'),
    ).toBe(0);
    // The value is kept in the secret store; config.json holds only its reference.
    expect(await saved()).toEqual({
      endpoint: 'http://127.0.0.1:4318',
      headers: { 'X-Key': { ref: 'telemetry/header/x-key' } },
    });
    expect(await readFile(join(home, 'config.json'), 'utf8')).not.toContain('k-123');
    expect(await readFile(join(home, 'secrets.json'), 'utf8')).toContain('k-123');
    expect(errs).toContain('unencrypted');
    out = '';
    expect(await run('show')).toBe(0);
    expect(out).toContain('http://127.0.0.1:4318');
    expect(out).toContain('X-Key');
    expect(out).not.toContain('k-123');
    expect(await run('off')).toBe(0);
    expect(await saved()).toBeUndefined();
    expect(await readFile(join(home, 'secrets.json'), 'utf8')).not.toContain('k-123');
    expect(out).toContain('Warden applies it when its core next starts');
    // Made through a core of the command's own, each change is in the audit log.
    const core = await createCore({ wardenHome: home, probeHost: false });
    const rows = await core.audit.query({ kind: 'policy.changed' });
    await core.close();
    expect(rows.rows.map((r) => r.event)).toMatchObject([
      { changed: ['telemetry'] },
      { changed: ['telemetry.endpoint', 'telemetry.headers'] },
    ]);
  });

  it('without a running core the change is made by one that exports nothing: no wait on a collector', async () => {
    const collector = await startOtlpCollector();
    try {
      expect(await run('set', '--endpoint', collector.endpoint)).toBe(0);
      expect(await run('off')).toBe(0);
      expect(collector.posts).toEqual([]);
    } finally {
      await collector.close();
    }
  });

  it('set again replaces the stored header values and forgets those no longer named', async () => {
    await run('set', '--endpoint', 'http://c.test', '--header', 'X-A: a-1', '--header', 'X-B: b-1');
    await run('set', '--endpoint', 'http://c.test', '--header', 'X-A: a-2');
    const secrets = await readFile(join(home, 'secrets.json'), 'utf8');
    expect(secrets).toContain('a-2');
    expect(secrets).not.toContain('a-1');
    expect(secrets).not.toContain('b-1');
    expect(await saved()).toEqual({
      endpoint: 'http://c.test',
      headers: { 'X-A': { ref: 'telemetry/header/x-a' } },
    });
  });

  it('an invalid endpoint stores no header value', async () => {
    expect(await run('set', '--endpoint', 'ftp://c.test', '--header', 'X-A: a-1')).toBe(1);
    expect(await readFile(join(home, 'secrets.json'), 'utf8').catch(() => '')).not.toContain('a-1');
  });

  it('refuses an endpoint that is not http(s), one with credentials, and a header with a line break', async () => {
    expect(await run('set', '--endpoint', 'file:///etc/passwd')).toBe(1);
    expect(await run('set', '--endpoint', 'http://user:pw@collector.test')).toBe(1);
    expect(
      await run('set', '--endpoint', 'http://c.test', '--header', 'X-A: 1\r\nX-Injected: 2'),
    ).toBe(1);
    expect(errs).toContain('telemetry.endpoint');
    expect(errs).toContain('telemetry.headers');
  });
});
