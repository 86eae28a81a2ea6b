/**
 * `warden clients connect` shows the change and asks before writing, as import does: without a
 * terminal and without --yes it writes nothing and says how to go on; --yes writes. And import
 * names a server whose script the sandbox would not see, with the folder to declare.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClientsCommand, runImportCommand } from '../../main/clients/clients-cli';
import type { ClientsContext } from '../../main/clients/clients-context';
import type { CliIo } from '../../main/cli/cli-io';
import { type Core, createCore } from '../../main/core/core';
import { fakeHomeOverrides, placeClaudeConfig } from './clients-fixture';
import { tempDirEach } from '../helpers/temp-dir';

let root = '';
let home: string;
let core: Core;
let overrides: Partial<ClientsContext>;
let configPath: string;

function io(answer?: string) {
  const out = { stdout: '', stderr: '', asked: [] as string[] };
  const cli: CliIo = {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    ...(answer === undefined
      ? {}
      : {
          ask: (question: string) => {
            out.asked.push(question);
            return Promise.resolve(answer);
          },
        }),
  };
  return { out, io: cli };
}

tempDirEach('warden-connect-asks-', (d) => (root = d));
beforeEach(async () => {
  home = join(root, 'home');
  core = await createCore({ wardenHome: join(root, 'warden') });
  overrides = fakeHomeOverrides(home);
  configPath = await placeClaudeConfig(home);
  await runImportCommand(['claude-desktop', '--yes'], io().io, core, overrides);
});
afterEach(async () => {
  await core.close();
});

describe('warden clients connect', () => {
  it('with no terminal and no --yes: shows the change, writes nothing, exits 1 with the hint', async () => {
    const original = await readFile(configPath, 'utf8');
    const { out, io: cli } = io();
    expect(await runClientsCommand(['connect', 'claude-desktop'], cli, core, overrides)).toBe(1);
    expect(out.stdout).toContain('+      "command": "/usr/bin/node"');
    expect(out.stderr).toBe(
      'warden: clients connect: nothing was written; check the change above, then run again with --yes to write it\n',
    );
    expect(await readFile(configPath, 'utf8')).toBe(original);
  });

  it('at a terminal: asks, and writes nothing unless the answer is yes', async () => {
    const original = await readFile(configPath, 'utf8');
    for (const answer of ['', 'n', 'no', 'whatever']) {
      const { out, io: cli } = io(answer);
      expect(await runClientsCommand(['connect', 'claude-desktop'], cli, core, overrides)).toBe(1);
      expect(out.asked).toEqual(["Write this change to claude-desktop's config? [y/N] "]);
      expect(out.stdout).toContain('Nothing was written.');
      expect(await readFile(configPath, 'utf8')).toBe(original);
    }
    const { out, io: cli } = io('y');
    expect(await runClientsCommand(['connect', 'claude-desktop'], cli, core, overrides)).toBe(0);
    expect(out.stdout).toMatch(/Backup of the original file: /);
    expect(await readFile(configPath, 'utf8')).not.toBe(original);
  });

  it('--yes writes without asking', async () => {
    const { out, io: cli } = io('n');
    expect(
      await runClientsCommand(['connect', 'claude-desktop', '--yes'], cli, core, overrides),
    ).toBe(0);
    expect(out.asked).toEqual([]);
    expect(out.stdout).toMatch(/Backup of the original file: /);
  });
});

describe('warden import', () => {
  it('warns in the preview and does not import a server whose script it cannot see', async () => {
    const file = join(root, 'cursor.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          notes: { command: 'python3', args: ['/nonexistent/mcp/notes.py'] },
        },
      }),
    );
    const preview = io();
    expect(await runImportCommand(['cursor', '--path', file], preview.io, core, overrides)).toBe(0);
    expect(preview.out.stdout).toContain(
      'the script /nonexistent/mcp/notes.py is outside every folder the server can see: let the server read its folder: --ro /nonexistent/mcp',
    );
    const apply = io();
    expect(
      await runImportCommand(['cursor', '--path', file, '--yes'], apply.io, core, overrides),
    ).toBe(0);
    expect(apply.out.stdout).toContain(
      'Not imported "notes": the script /nonexistent/mcp/notes.py',
    );
    expect(core.config.getServer('notes')).toBeUndefined();
  });
});
