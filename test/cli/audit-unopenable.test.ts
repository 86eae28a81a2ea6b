/**
 * Commands that need the audit log when it cannot be opened (here its path is a folder): each
 * says which file, why, and what to do, and exits 1; none reports an internal error or a stack.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWarden } from '../helpers/warden-bin';

let home: string;
let env: Record<string, string>;
let auditPath: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-audit-unopenable-'));
  auditPath = join(home, 'audit.db');
  await mkdir(auditPath);
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, WARDEN_HOME: home };
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('an audit log that cannot be opened', () => {
  it.each([
    ['servers add', ['servers', 'add', 'files', '--', '/bin/cat']],
    ['serve', ['serve', '--no-open', '--gateway-port', '0']],
  ])('%s names the file and the remedy, without a stack', async (_label, args) => {
    const run = await runWarden(args, env);
    expect(run.stderr).toBe(
      `warden: Cannot open the audit log ${auditPath}: unable to open database file ` +
        `(${auditPath} is not a file: move it aside (keep it if it matters), and a new log is started there.)\n`,
    );
    expect(run.code).toBe(1);
  });

  it('audit verify sets the remedy apart from the reason', async () => {
    const run = await runWarden(['audit', 'verify'], env);
    expect(run.stderr).toMatch(/^warden audit: Cannot open the audit log /);
    expect(run.stderr).toContain(`: disk I/O error (${auditPath} is not a file: move it aside`);
    expect(run.code).toBe(1);
  });
});
