/**
 * `--arg-rule`, `--remove-arg-rule` and `--credentials` on `servers add` and `servers edit`: the
 * rule lands in the policy as written, a bad one is refused naming the flag, and `servers show`
 * lists what applies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli';

let home: string;
let out: string;
let err: string;
const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (err += s) };

async function warden(...argv: string[]): Promise<number> {
  out = '';
  err = '';
  return runCli(argv, io);
}

async function toolsOf(name: string) {
  expect(await warden('servers', 'show', name, '--json')).toBe(0);
  return (JSON.parse(out) as { server: { policy: { tools: Record<string, unknown> } } }).server
    .policy.tools;
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-argrule-'));
  process.env.WARDEN_HOME = home;
});
afterEach(async () => {
  delete process.env.WARDEN_HOME;
  await rm(home, { recursive: true, force: true });
});

describe('argument rule flags', () => {
  it('adds rules and the credential mode, shows them, and takes a rule away', async () => {
    const added = await warden(
      'servers',
      'add',
      'files',
      '--ro',
      '/srv/data',
      '--arg-rule',
      '*:path:within-roots',
      '--arg-rule=fetch:url:match=^https://[a-z.]+/.*$',
      '--credentials',
      'block',
      '--',
      '/usr/bin/true',
    );
    expect(err).toBe('');
    expect(added).toBe(0);
    expect(await toolsOf('files')).toMatchObject({
      argRules: [
        { tool: '*', arg: 'path', rule: 'within-roots' },
        { tool: 'fetch', arg: 'url', rule: 'match=^https://[a-z.]+/.*$' },
      ],
      credentials: 'block',
    });
    expect(await warden('servers', 'show', 'files')).toBe(0);
    expect(out).toContain('arg rules:  *:path:within-roots, fetch:url:match=');
    expect(out).toContain('credentials: block');

    expect(
      await warden('servers', 'edit', 'files', '--remove-arg-rule', '*:path:within-roots'),
    ).toBe(0);
    expect((await toolsOf('files')).argRules).toEqual([
      { tool: 'fetch', arg: 'url', rule: 'match=^https://[a-z.]+/.*$' },
    ]);
    expect(await warden('servers', 'edit', 'files', '--remove-arg-rule', 'x:y:within-roots')).toBe(
      2,
    );
    expect(err).toContain('is not an argument rule');
  });

  it('refuses a rule that does not parse, naming the flag', async () => {
    for (const bad of [
      'read_file:path',
      'read_file:path:within=relative',
      'a:b:match=(',
      'a:b:nope',
    ]) {
      const status = await warden('servers', 'add', 'x', '--arg-rule', bad, '--', '/usr/bin/true');
      expect(status, bad).toBe(2);
      expect(err).toContain('--arg-rule:');
    }
    expect(
      await warden('servers', 'add', 'x', '--credentials', 'maybe', '--', '/usr/bin/true'),
    ).toBe(2);
  });
});
