import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../main/cli/cli';

let home: string;
const realHome = process.env.HOME;
let out: string[];
let errs: string[];
const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void errs.push(s) };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-cli-'));
  process.env.WARDEN_HOME = home;
  // npx's cache folder is granted (and created) in the user's home: this test's own.
  process.env.HOME = join(home, 'user');
  out = [];
  errs = [];
});
afterEach(async () => {
  delete process.env.WARDEN_HOME;
  process.env.HOME = realHome;
  await rm(home, { recursive: true, force: true });
});

describe('warden servers', () => {
  it('adds, shows, lists and removes a server with its policy flags', async () => {
    const status = await runCli(
      [
        'servers',
        'add',
        'files',
        '--ro',
        '/srv/data',
        '--rw=/tmp/out',
        '--net',
        'allowlist',
        '--allow',
        'api.example.com:443',
        '--deny',
        '*.bad.example',
        '--env',
        'HOME',
        '--set-env',
        'MODE=fast',
        '--memory',
        '512',
        '--pids',
        '64',
        '--cpu',
        '30',
        '--',
        'npx',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/srv/data',
      ],
      io,
    );
    expect(errs.join('')).toBe('');
    expect(status).toBe(0);
    out = [];
    expect(await runCli(['servers', 'show', 'files', '--json'], io)).toBe(0);
    const view = JSON.parse(out.join('')) as {
      server: { policy: Record<string, unknown>; revision: number };
      commandLine: string;
    };
    expect(view.commandLine).toBe('npx -y @modelcontextprotocol/server-filesystem /srv/data');
    expect(view.server.revision).toBe(1);
    expect(view.server.policy).toMatchObject({
      isolation: 'sandbox',
      filesystem: {
        roots: [
          { path: '/srv/data', access: 'read' },
          { path: '/tmp/out', access: 'write' },
          { path: join(home, 'user', '.npm'), access: 'write' },
        ],
      },
      network: { mode: 'allowlist', allow: ['api.example.com:443'], deny: ['*.bad.example'] },
      env: {
        pass: ['HOME'],
        set: {
          MODE: { kind: 'plain', value: 'fast' },
          npm_config_cache: { kind: 'plain', value: join(home, 'user', '.npm') },
        },
      },
      limits: { memoryMb: 512, pids: 64, cpuSeconds: 30 },
    });
    const onDisk = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as {
      servers: { name: string }[];
    };
    expect(onDisk.servers.map((s) => s.name)).toEqual(['files']);

    expect(view.server).toMatchObject({ acknowledged: true });
    out = [];
    expect(await runCli(['servers', 'list'], io)).toBe(0);
    expect(out.join('')).toContain('files');
    expect(await runCli(['servers', 'remove', 'files'], io)).toBe(0);
    expect(await runCli(['servers', 'show', 'files'], io)).toBe(1);
    expect(errs.join('')).toContain('no server named "files"');
  });

  it.each([
    [['--isolation', 'maybe'], '--isolation: expected one of sandbox, off, got "maybe"'],
    [['--net', 'wide'], '--net: expected one of none, allowlist, ask, got "wide"'],
    [['--memory', 'lots'], '--memory: expected megabytes (a positive whole number), got "lots"'],
    [['--pids', '0'], '--pids: expected a count (a positive whole number), got "0"'],
    [
      ['--set-env', '1X=2'],
      '--set-env: expected KEY=VALUE with a variable name as KEY, got "1X=2"',
    ],
    [['--env', 'A-B'], '--env: expected a variable name, got "A-B"'],
    [['--ro'], '--ro: needs a value'],
    [
      ['--best-effort', 'disk'],
      '--best-effort: expected one of memory, pids, cpu, files, wall, got "disk"',
    ],
    [['--colour', 'red'], 'servers add: unknown flag "--colour" (see warden servers add --help)'],
    [['--allow', 'https://x.example/path'], /^--allow "https:\/\/x\.example\/path": /],
  ])('refuses %j with one line naming the flag, exit 2', async (flags, message) => {
    const status = await runCli(['servers', 'add', 'x', ...flags, '--', 'true'], io);
    expect(status).toBe(2);
    expect(errs).toHaveLength(1);
    if (typeof message === 'string') expect(errs[0]).toBe(`warden: ${message}\n`);
    else expect(errs[0]!.replace(/^warden: /, '')).toMatch(message);
  });

  it('refuses an unknown command and shows help', async () => {
    expect(await runCli(['frobnicate'], io)).toBe(2);
    expect(errs.join('')).toContain('unknown command "frobnicate"');
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('Usage: warden');
  });

  it('reports a corrupt config moved aside and still works', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(home, 'config.json'), 'not json');
    expect(await runCli(['servers', 'list'], io)).toBe(0);
    expect(errs.join('')).toMatch(
      /warning: config\.json is not valid JSON.*moved to .*config\.json\.corrupt-/,
    );
  });
});

describe('the built warden binary', () => {
  it('runs from bin/warden.js and exits 2 on a bad flag', () => {
    const bin = join(import.meta.dirname, '../../bin/warden.js');
    const result = spawnSync(
      process.execPath,
      [bin, 'servers', 'add', 'x', '--net', 'nope', '--', 'true'],
      {
        env: { ...process.env, WARDEN_HOME: home },
        encoding: 'utf8',
      },
    );
    expect(result.stderr).toBe('warden: --net: expected one of none, allowlist, ask, got "nope"\n');
    expect(result.status).toBe(2);
  });
});
