/** `warden autostart on|off|show` for `warden serve`, on Linux (an XDG autostart entry). */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../test/helpers/capture-io';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { UsageError } from '../cli/cli-io';
import { runAutostartCommand } from './autostart-command';

let dir = '';
tempDirEach('warden-autostart-cli-', (d) => (dir = d));
let env: NodeJS.ProcessEnv = {};
let entry = '';
beforeEach(() => {
  env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'cfg'), WARDEN_HOME: join(dir, 'state') };
  entry = join(dir, 'cfg', 'autostart', 'mcp-warden.desktop');
});

describe.skipIf(process.platform !== 'linux')('warden autostart (Linux: an XDG entry)', () => {
  it('turns the entry on and off, and shows which', async () => {
    const shown = captureIo();
    expect(await runAutostartCommand(['show'], shown.io, env)).toBe(0);
    expect(shown.out.stdout).toBe(`Warden does not start at login.\n  Entry: ${entry}\n`);

    const on = captureIo();
    expect(await runAutostartCommand(['on', '--gateway-port', '48123'], on.io, env)).toBe(0);
    expect(on.out.stdout).toContain('At login, Warden now starts `warden serve`');
    expect(on.out.stdout).not.toContain('replaces');
    expect(await readFile(entry, 'utf8')).toMatch(
      / serve --no-open --no-token --gateway-port 48123$/m,
    );

    const json = captureIo();
    await runAutostartCommand(['show', '--gateway-port', '48123', '--json'], json.io, env);
    expect(JSON.parse(json.out.stdout)).toMatchObject({
      available: true,
      enabled: true,
      where: entry,
    });

    // Without the port it was turned on with, it is not what `on` writes, and says so.
    const plain = captureIo();
    await runAutostartCommand(['show'], plain.io, env);
    expect(plain.out.stdout).toContain('--gateway-port 48123');
    expect(plain.out.stdout).toContain('"warden autostart on" replaces it');

    const off = captureIo();
    expect(await runAutostartCommand(['off'], off.io, env)).toBe(0);
    expect(off.out.stdout).toBe(`Warden no longer starts at login (${entry} removed).\n`);
    await expect(stat(entry)).rejects.toThrow();
  });

  it('names another program’s entry in show, and says on replaced it', async () => {
    await mkdir(join(dir, 'cfg', 'autostart'), { recursive: true });
    await writeFile(entry, '[Desktop Entry]\nExec=/usr/bin/other \u001b[31m--flag\n');
    const shown = captureIo();
    await runAutostartCommand(['show'], shown.io, env);
    // The foreign command is untrusted text: its escape sequence is shown, not sent.
    expect(shown.out.stdout).toMatch(
      /^The login entry starts something other than .*\n {2}\/usr\/bin\/other/,
    );
    expect(shown.out.stdout).not.toContain('\u001b');
    const on = captureIo();
    await runAutostartCommand(['on'], on.io, env);
    expect(on.out.stdout).toContain('It replaces the entry that started: /usr/bin/other');
    expect(on.out.stdout).not.toContain('\u001b');
  });

  it('refuses a bad port or subcommand before touching anything', async () => {
    const { io } = captureIo();
    await expect(runAutostartCommand(['on', '--gateway-port', 'x'], io, env)).rejects.toThrow(
      UsageError,
    );
    await expect(runAutostartCommand(['maybe'], io, env)).rejects.toThrow(UsageError);
    await expect(stat(entry)).rejects.toThrow();
  });
});
