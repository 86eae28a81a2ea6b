/**
 * The process-level handlers in a process of their own (vitest would report the escaped errors
 * itself): an error escaping one session is logged and audited with that session, ends that
 * session, and the core, the other session and the contract go on.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileScript } from '../helpers/hostile-sessions';

const root = join(import.meta.dirname, '../..');
let bundleDir: string;
let home: string;
let entry: string;
beforeAll(async () => {
  // Beside node_modules, so that the packages it leaves external (better-sqlite3) resolve.
  await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
  bundleDir = await mkdtemp(join(root, 'node_modules/.cache/warden-guard-'));
  home = await mkdtemp(join(tmpdir(), 'warden-guard-'));
  entry = join(bundleDir, 'entry.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../fixtures/process-guard-entry.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

describe('process guard', () => {
  it('errors that reach the process are logged and audited, and the core goes on; one from a session callback ends that session alone', () => {
    const run = spawnSync(process.execPath, [entry, home, hostileScript], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      afterProcessErrors: { a: string; echoA: unknown };
      stateA: { kind: string; reason: string };
      echoed: unknown;
      contract: boolean;
      errors: { source: string; message: string; instance?: string }[];
      logged: string[];
    };
    expect(out.afterProcessErrors).toEqual({
      a: 'running',
      echoA: [{ type: 'text', text: 'A goes on' }],
    });
    expect(out.stateA).toMatchObject({
      kind: 'failed',
      reason: 'an unexpected error in this session: a bug escaped session A',
    });
    expect(out.echoed).toEqual([{ type: 'text', text: 'B is fine' }]);
    expect(out.contract).toBe(true);
    expect(out.errors.map((e) => [e.source, e.message, e.instance !== undefined]).sort()).toEqual([
      ['session', 'a bug escaped session A', true],
      ['uncaughtException', 'a bug escaped to the process', false],
      ['unhandledRejection', 'a rejection escaped to the process', false],
    ]);
    expect(out.logged.join('\n')).toMatch(/unexpected error in session .* a bug escaped session A/);
    expect(out.logged.join('\n')).toMatch(/unexpected error \(uncaughtException\)/);
  });
});
