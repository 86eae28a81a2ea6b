/**
 * The process-level handlers in a process of their own (vitest would report the escaped errors
 * itself): an error escaping one session is logged and audited with that session, ends that
 * session, and the core, the other session and the contract go on.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleBesidePackagesAll } from '../helpers/bundle';
import { hostileScript } from '../helpers/hostile-sessions';

let home: string;
let entry: string;
bundleBesidePackagesAll(
  join(import.meta.dirname, '../fixtures/process-guard-entry.ts'),
  (s) => (entry = s),
);
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-guard-'));
});
afterAll(async () => {
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
