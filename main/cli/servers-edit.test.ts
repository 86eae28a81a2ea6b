/**
 * `warden servers edit`: changes a policy in place (a new revision, audited) instead of remove
 * and re-add; removal flags take away exactly what they name; the command check runs again when
 * the folders change. And errors that say where: a missing server names the state folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli';
import { cliSession } from '../../test/helpers/capture-io';

let home: string;
const cli = cliSession(runCli);
const { warden } = cli;

async function policyOf(name: string) {
  expect(await warden('servers', 'show', name, '--json')).toBe(0);
  return JSON.parse(cli.out) as {
    server: {
      revision: number;
      acknowledged: boolean;
      policy: {
        filesystem: { roots: { path: string; access: string }[] };
        network: { mode: string; allow: string[]; deny: string[] };
        env: { pass: string[]; set: Record<string, unknown> };
        limits: Record<string, unknown>;
        tools: Record<string, unknown>;
      };
    };
  };
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-edit-'));
  process.env.WARDEN_HOME = home;
  expect(
    await warden(
      'servers',
      'add',
      'files',
      '--ro',
      '/srv/app',
      '--ro',
      '/srv/data',
      '--net',
      'allowlist',
      '--allow',
      'api.example.com',
      '--env',
      'LANG',
      '--set-env',
      'MODE=fast',
      '--memory',
      '900',
      '--best-effort',
      'memory',
      '--',
      'node',
      '/srv/app/server.js',
    ),
  ).toBe(0);
});
afterEach(async () => {
  delete process.env.WARDEN_HOME;
  await rm(home, { recursive: true, force: true });
});

describe('warden servers edit', () => {
  it('adds and removes roots, destinations, variables and limits in one new revision', async () => {
    const status = await warden(
      'servers',
      'edit',
      'files',
      '--remove-root',
      '/srv/data',
      '--rw',
      '/srv/out',
      '--remove-allow',
      'api.example.com',
      '--allow',
      '*.example.org',
      '--deny',
      'bad.example.org',
      '--remove-env',
      'MODE',
      '--env',
      'TZ',
      '--no-limit',
      'memory',
      '--pids',
      '64',
    );
    expect(cli.err).toBe('');
    expect(status).toBe(0);
    expect(cli.out).toContain('Changed "files" (revision 1 → 2)');
    const { server } = await policyOf('files');
    expect(server.revision).toBe(2);
    expect(server.acknowledged).toBe(true);
    expect(server.policy.filesystem.roots).toEqual([
      { path: '/srv/app', access: 'read' },
      { path: '/srv/out', access: 'write' },
    ]);
    expect(server.policy.network).toMatchObject({
      mode: 'allowlist',
      allow: ['*.example.org'],
      deny: ['bad.example.org'],
    });
    expect(server.policy.env).toEqual({ pass: ['LANG', 'TZ'], set: {} });
    expect(server.policy.limits).toEqual({ pids: 64, bestEffort: [] });
  });

  it('changes a root from read-only to writable, and records the change in the audit log', async () => {
    expect(await warden('servers', 'edit', 'files', '--rw', '/srv/data')).toBe(0);
    const { server } = await policyOf('files');
    expect(server.policy.filesystem.roots).toContainEqual({ path: '/srv/data', access: 'write' });
    expect(server.policy.filesystem.roots).toHaveLength(2);
    expect(await warden('audit', 'list', '--kind', 'policy.changed', '--json')).toBe(0);
    const { rows } = JSON.parse(cli.out) as { rows: { event: Record<string, unknown> }[] };
    expect(rows[0]!.event).toMatchObject({
      kind: 'policy.changed',
      server: 'files',
      revisionBefore: 1,
      revisionAfter: 2,
      changed: ['policy.filesystem.roots'],
    });
  });

  it.each([
    [
      ['--remove-root', '/srv/nope'],
      '--remove-root: "/srv/nope" is not a root (now: /srv/app, /srv/data)',
    ],
    [
      ['--remove-allow', 'x.example'],
      '--remove-allow: "x.example" is not an allowed destination (now: api.example.com)',
    ],
    [['--remove-env', 'NOPE'], '--remove-env: "NOPE" is neither passed nor set'],
    [['--no-limit', 'cpu'], '--no-limit: no cpu limit is set'],
    [
      ['--no-limit', 'disk'],
      '--no-limit: expected one of memory, pids, cpu, files, wall, got "disk"',
    ],
    [[], 'edit: nothing to change; give a flag'],
    [['--memory', 'lots'], '--memory: expected megabytes (a positive whole number), got "lots"'],
  ])('refuses %j with one line, status 2, and changes nothing', async (flags, message) => {
    expect(await warden('servers', 'edit', 'files', ...flags)).toBe(2);
    expect(cli.err).toBe(`warden: ${message}\n`);
    expect((await policyOf('files')).server.revision).toBe(1);
  });

  it('runs the command check again: taking away the folder of the script is refused', async () => {
    expect(await warden('servers', 'edit', 'files', '--remove-root', '/srv/app')).toBe(1);
    expect(cli.err).toContain(
      'the script /srv/app/server.js is outside every folder the server can see',
    );
    expect(cli.err).toContain('--ro /srv/app');
    expect((await policyOf('files')).server.revision).toBe(1);
  });

  it('a missing server names the state folder it looked in, and WARDEN_HOME', async () => {
    expect(await warden('servers', 'edit', 'nope', '--memory', '1')).toBe(1);
    expect(cli.err).toContain(`no server named "nope" in ${home} (set by WARDEN_HOME;`);
    for (const sub of ['show', 'remove', 'confirm']) {
      expect(await warden('servers', sub, 'nope')).toBe(1);
      expect(cli.err).toContain(`no server named "nope" in ${home}`);
    }
  });
});

describe('warden servers add checks the command', () => {
  it.each([
    [
      ['node', 'some/dir/server.js'],
      `give its absolute path (${process.cwd()}/some/dir/server.js)`,
    ],
    [['python3', '/opt/mcp/server.py'], '--ro /opt/mcp'],
    [['uv', 'run', '--with', 'mcp', 'tools/srv.py'], `--ro ${process.cwd()}/tools`],
  ])('refuses %j and says which --ro to add', async (command, remedy) => {
    expect(await warden('servers', 'add', 'bad', '--ro', '/srv/data', '--', ...command)).toBe(1);
    expect(cli.err).toContain(remedy);
    expect(await warden('servers', 'show', 'bad')).toBe(1);
  });

  it('accepts the same script once its folder is declared', async () => {
    expect(
      await warden(
        'servers',
        'add',
        'ok',
        '--ro',
        '/opt/mcp',
        '--',
        'python3',
        '/opt/mcp/server.py',
      ),
    ).toBe(0);
  });
});

describe('argument rule and credential flags', () => {
  const rulesOf = async (name: string) => (await policyOf(name)).server.policy.tools;

  it('adds rules and the credential mode, shows them, and takes a rule away', async () => {
    const edit = 'servers edit files --arg-rule *:path:within-roots --credentials block';
    const added = await warden(
      ...edit.split(' '),
      '--arg-rule=fetch:url:match=^https://[a-z.]+/.*$',
    );
    expect(cli.err).toBe('');
    expect(added).toBe(0);
    expect(await rulesOf('files')).toMatchObject({
      argRules: [
        { tool: '*', arg: 'path', rule: 'within-roots' },
        { tool: 'fetch', arg: 'url', rule: 'match=^https://[a-z.]+/.*$' },
      ],
      credentials: 'block',
    });
    expect(await warden('servers', 'show', 'files')).toBe(0);
    expect(cli.out).toContain('arg rules:  *:path:within-roots, fetch:url:match=');
    expect(cli.out).toContain('credentials: block');

    const removal = ['servers', 'edit', 'files', '--remove-arg-rule'];
    expect(await warden(...removal, '*:path:within-roots')).toBe(0);
    expect((await rulesOf('files')).argRules).toEqual([
      { tool: 'fetch', arg: 'url', rule: 'match=^https://[a-z.]+/.*$' },
    ]);
    expect(await warden(...removal, 'x:y:within-roots')).toBe(2);
    expect(cli.err).toContain('is not an argument rule');
  });

  it('refuses a rule that does not parse on add, naming the flag', async () => {
    const add = (...flags: string[]) =>
      warden('servers', 'add', 'x', ...flags, '--', '/usr/bin/true');
    for (const bad of ['read_file:path', 'read_file:path:within=rel', 'a:b:match=(', 'a:b:nope']) {
      expect(await add('--arg-rule', bad), bad).toBe(2);
      expect(cli.err).toContain('--arg-rule:');
    }
    expect(await add('--credentials', 'maybe')).toBe(2);
    expect(await add('--arg-rule', 'read:path:within-roots')).toBe(0);
  });
});
