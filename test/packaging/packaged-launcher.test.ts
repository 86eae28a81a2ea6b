/**
 * The packaged app's launcher (`resources/bin/warden`) starts the CLI on the app's own runtime:
 * `warden connect`, which an AI client waits for at each start, and `warden servers list` on their
 * own entries (each built as one file), and every other command line on the whole CLI. Run here in
 * an installed layout whose app only prints what it was given.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirEach } from '../helpers/temp-dir';

const root = join(import.meta.dirname, '../..');
let dir = '';
tempDirEach('warden-launcher-', (d) => {
  dir = d;
});

/** What the app was started with, one argument a line, for `warden ARGS`. */
function launch(...args: string[]): string[] {
  const resources = join(dir, 'opt', 'resources');
  mkdirSync(join(resources, 'bin'), { recursive: true });
  const launcher = join(resources, 'bin', 'warden');
  copyFileSync(join(root, 'resources/packaging/bin/warden'), launcher);
  copyFileSync(join(root, 'bin/warden-door.sh'), join(resources, 'bin', 'warden-door.sh'));
  const app = join(dir, 'opt', process.platform === 'darwin' ? 'MacOS/MCP Warden' : 'mcp-warden');
  mkdirSync(join(app, '..'), { recursive: true });
  writeFileSync(app, '#!/bin/sh\nprintf "%s\\n" "$ELECTRON_RUN_AS_NODE" "$@"\n');
  chmodSync(launcher, 0o755);
  chmodSync(app, 0o755);
  // A state folder with no core running: the door is not there, so the app is started.
  const r = spawnSync(launcher, args, {
    env: { ...process.env, WARDEN_HOME: join(dir, 'home') },
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trimEnd().split('\n');
}

describe.skipIf(process.platform === 'win32')('the packaged launcher', () => {
  it('starts a connect and a list on their entries, and anything else on the whole CLI', () => {
    const resources = join(dir, 'opt', 'resources');
    expect(launch('connect', 'fs', '--client', 'cursor')).toEqual([
      '1',
      join(resources, 'app.asar/out/cli/connect.mjs'),
      'connect',
      'fs',
      '--client',
      'cursor',
    ]);
    expect(launch('servers', 'list', '--json')).toEqual([
      '1',
      join(resources, 'app.asar/out/cli/list.mjs'),
      'servers',
      'list',
      '--json',
    ]);
    expect(launch('servers', 'show', 'fs')).toEqual([
      '1',
      join(resources, 'app.asar/out/cli/warden.mjs'),
      'servers',
      'show',
      'fs',
    ]);
    expect(launch()).toEqual(['1', join(resources, 'app.asar/out/cli/warden.mjs')]);
  });
});

// cmd.exe, which runs warden.cmd, exists only on Windows.
describe.runIf(process.platform === 'win32')('the packaged Windows launcher', () => {
  it('starts a connect and a list on their entries, and anything else on the whole CLI', () => {
    // An installed layout whose app is this Node (in Node mode it runs the entry it is given),
    // and whose entries print what they were started with.
    const resources = join(dir, 'resources');
    const cli = join(resources, 'app.asar', 'out', 'cli');
    mkdirSync(join(resources, 'bin'), { recursive: true });
    mkdirSync(cli, { recursive: true });
    copyFileSync(
      join(root, 'resources/packaging/bin/warden.cmd'),
      join(resources, 'bin', 'warden.cmd'),
    );
    copyFileSync(process.execPath, join(dir, 'MCP Warden.exe'));
    for (const entry of ['connect.mjs', 'list.mjs', 'warden.mjs']) {
      writeFileSync(
        join(cli, entry),
        `console.log(JSON.stringify([${JSON.stringify(entry)}, process.env.ELECTRON_RUN_AS_NODE, ...process.argv.slice(2)]));\n`,
      );
    }
    const run = (...args: string[]) => {
      const r = spawnSync('cmd.exe', ['/d', '/c', join(resources, 'bin', 'warden.cmd'), ...args], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout) as string[];
    };
    expect(run('connect', 'fs')).toEqual(['connect.mjs', '1', 'connect', 'fs']);
    expect(run('servers', 'list')).toEqual(['list.mjs', '1', 'servers', 'list']);
    expect(run('servers', 'show', 'fs')).toEqual(['warden.mjs', '1', 'servers', 'show', 'fs']);
  });
});
