/**
 * One help system over every command: `warden --help`, `--version`, `warden CMD --help` and
 * `warden CMD SUB --help` answer in the same layout with status 0, and a flag a command does not
 * take is refused with status 2, naming that command's --help. Table-driven over the spec table.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { runCli } from './cli';
import { ALL_COMMANDS, COMMAND_GROUPS, LEAF_COMMANDS } from './command-specs';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-help-'));
  process.env.WARDEN_HOME = home;
});
afterAll(async () => {
  delete process.env.WARDEN_HOME;
  await rm(home, { recursive: true, force: true });
});

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCli(argv, {
    stdout: (s) => void out.push(s),
    stderr: (s) => void err.push(s),
  });
  return { status, out: out.join(''), err: err.join('') };
}

const every = ALL_COMMANDS.map((c) => [c.path.join(' '), c] as const);

describe('warden --help and --version', () => {
  it.each([['--help'], ['-h'], ['help']])(
    'warden %s lists every command, status 0',
    async (flag) => {
      const r = await run(flag);
      expect(r.status).toBe(0);
      expect(r.out).toMatch(/^Usage: warden <command> \[options\]\n/);
      for (const name of [
        ...COMMAND_GROUPS.map((g) => g.name),
        ...LEAF_COMMANDS.map((c) => c.path[0]),
      ])
        expect(r.out).toContain(`\n  ${name}`);
      expect(r.out).toContain(home);
    },
  );

  it.each([['--version'], ['-V']])('warden %s prints the version, status 0', async (flag) => {
    const r = await run(flag);
    expect(r).toMatchObject({ status: 0, out: `warden ${packageJson.version}\n`, err: '' });
  });

  it('warden help CMD SUB is warden CMD SUB --help', async () => {
    expect((await run('help', 'servers', 'add')).out).toBe(
      (await run('servers', 'add', '--help')).out,
    );
  });
});

describe.each(every)('warden %s', (path, spec) => {
  const words = spec.path;

  it('--help and -h print its help in the one layout, status 0', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await run(...words, flag);
      expect(r.err).toBe('');
      expect(r.status).toBe(0);
      expect(r.out.startsWith(`Usage: warden ${path}`)).toBe(true);
      expect(r.out).toContain('\nOptions:\n');
      expect(r.out).toContain('  -h, --help                  show this help');
      for (const flag of spec.flags) expect(r.out).toContain(`  ${flag.name}`);
    }
  });

  it('--help after other arguments still prints help and runs nothing', async () => {
    const r = await run(...words, 'some-name', '--help');
    expect(r.status).toBe(0);
    expect(r.out.startsWith(`Usage: warden ${path}`)).toBe(true);
  });

  it('an unknown flag is refused with status 2, naming this command --help', async () => {
    const r = await run(...words, '--no-such-flag');
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `warden: ${path}: unknown flag "--no-such-flag" (see warden ${path} --help)\n`,
    );
  });
});

describe.each(COMMAND_GROUPS.map((g) => [g.name, g] as const))('warden %s', (name, group) => {
  it('--help lists every subcommand, status 0', async () => {
    const r = await run(name, '--help');
    expect(r.status).toBe(0);
    expect(r.out.startsWith(`Usage: warden ${name} <subcommand> [options]`)).toBe(true);
    for (const sub of group.subcommands) expect(r.out).toContain(`\n  ${sub.path[1]}`);
  });

  it('an unknown subcommand names the group --help, status 2', async () => {
    const r = await run(name, 'frobnicate');
    expect(r.status).toBe(2);
    expect(r.err).toContain(`see warden ${name} --help`);
  });
});

it('flags after -- belong to the command being run, not to warden', async () => {
  const r = await run('exec', '--isolation', 'off', '--', 'true', '--no-such-flag', '--help');
  expect(r.err).not.toContain('unknown flag');
  expect(r.out).not.toContain('Usage:');
});
