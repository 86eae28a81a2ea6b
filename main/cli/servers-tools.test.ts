/**
 * A server's tool policy from the command line, as the Tools tab sets it: tools disabled or
 * asking before each call, added and taken away (applied to running instances at once), the
 * pinned tools listed by `servers show`, and a pin forgotten (recorded as a policy change). Tool
 * names come from servers, so they are printed escaped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { pinTools } from '../../app/policy/policy-edits';
import { createCore } from '../core/core';
import { runCli } from './cli';
import { cliSession } from '../../test/helpers/capture-io';

let home: string;
const cli = cliSession(runCli);
const { warden } = cli;

async function toolsOf(name: string) {
  expect(await warden('servers', 'show', name, '--json')).toBe(0);
  return (
    JSON.parse(cli.out) as {
      server: { policy: { tools: { disabled: string[]; approval: string[]; pinned: object } } };
    }
  ).server.policy.tools;
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-cli-tools-'));
  process.env.WARDEN_HOME = home;
  const add = ['servers', 'add', 'files', '--disable-tool', 'delete_file'];
  expect(await warden(...add, '--require-approval', 'write_file', '--', '/usr/bin/true')).toBe(0);
});
afterEach(async () => {
  delete process.env.WARDEN_HOME;
  await rm(home, { recursive: true, force: true });
});

it('disables tools and asks before others, shows them, and takes them away', async () => {
  expect(await toolsOf('files')).toMatchObject({
    disabled: ['delete_file'],
    approval: ['write_file'],
  });
  expect(await warden('servers', 'show', 'files')).toBe(0);
  expect(cli.out).toContain('disabled:   delete_file\n');
  expect(cli.out).toContain('approval:   write_file\n');

  const edit = ['servers', 'edit', 'files'];
  expect(await warden(...edit, '--disable-tool', 'move_file', '--disable-tool=delete_file')).toBe(
    0,
  );
  expect(cli.out).toContain('running instances apply it at once');
  expect(
    await warden(...edit, '--enable-tool', 'delete_file', '--no-require-approval=write_file'),
  ).toBe(0);
  expect(await toolsOf('files')).toMatchObject({ disabled: ['move_file'], approval: [] });

  // Taking away what is not there is a usage error that says what is.
  expect(await warden(...edit, '--enable-tool', 'read_file')).toBe(2);
  expect(cli.err).toBe(
    'warden: --enable-tool: "read_file" is not a disabled tool (now: move_file)\n',
  );
  expect(await warden(...edit, '--no-require-approval', 'read_file')).toBe(2);
  // A usage error quotes what it was given, escaped as every line from Warden is.
  expect(await warden(...edit, '--enable-tool', 'clear\u001b[2J')).toBe(2);
  expect(cli.err).toContain('"clear\\x1b[2J" is not a disabled tool');
  expect(await warden(...edit, '--disable-tool', 'two words')).toBe(2);
  expect(cli.err).toContain('expected a tool name (1 to 128 characters, no spaces)');
  // A change of more than the tools waits for a restart, as before.
  expect(await warden(...edit, '--disable-tool', 'x', '--memory', '256')).toBe(0);
  expect(cli.out).toContain('running instances keep their revision until restarted');
});

it('lists the pinned tools and forgets one pin, escaping what a server named', async () => {
  const hostile = 'steal\u001b]0;ok\u0007';
  const core = await createCore({ wardenHome: home, log: () => undefined });
  const pins = Object.fromEntries(
    ['read_file', 'write_file', hostile].map((name) => [name, { name, description: 'd' }]),
  );
  await core.config.updateServer('files', (s) => ({ policy: pinTools(s.policy, pins) }));
  await core.close();

  expect(await warden('servers', 'show', 'files')).toBe(0);
  expect(cli.out).toContain('tools:      3 pinned: read_file, steal\\x1b]0;ok\\x07, write_file\n');
  expect(await warden('servers', 'forget-pin', 'files', hostile)).toBe(0);
  expect(cli.out).toBe(
    'Forgot the pinned definition of steal\\x1b]0;ok\\x07: the next listing of "files" pins it anew.\n',
  );
  expect(Object.keys((await toolsOf('files')).pinned)).toEqual(['read_file', 'write_file']);
  expect(await warden('servers', 'forget-pin', 'files', hostile)).toBe(0);
  expect(cli.out).toContain('has no pinned definition of steal\\x1b]0;ok\\x07');
  expect(await warden('servers', 'forget-pin', 'nobody', 'read_file')).toBe(1);
  expect(await warden('servers', 'forget-pin', 'files')).toBe(2);

  // Recorded as a change of the server's policy, as the Tools tab's forgetting is.
  expect(await warden('audit', 'list', '--kind', 'policy.changed', '--json')).toBe(0);
  expect(cli.out).toContain('policy.tools.pinned.steal');
});

it('exec, which relays no tool calls, refuses the tool flags instead of running without them', async () => {
  for (const flags of [
    ['--disable-tool', 'x'],
    ['--require-approval=x'],
    ['--arg-rule', '*:path:within-roots'],
    ['--credentials', 'block'],
  ]) {
    expect(await warden('exec', ...flags, '--', '/usr/bin/true'), flags[0]).toBe(2);
    expect(cli.err).toMatch(
      /^warden: exec: --[a-z-]+: it acts on a server's tool calls, which exec does not relay; add the command as a server/,
    );
  }
  expect(await warden('exec', '--help')).toBe(0);
  expect(cli.out).not.toMatch(/--disable-tool|--arg-rule|--credentials/);
  expect(await warden('servers', 'add', '--help')).toBe(0);
  expect(cli.out).toMatch(/--disable-tool TOOL[\s\S]*--require-approval TOOL/);
});
