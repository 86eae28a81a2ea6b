/**
 * What `warden autostart on` writes really starts a Warden that AI clients join: the entry's Exec
 * line is read back as a desktop session's launcher reads it and run as that session would (its
 * own environment, no terminal), then `bin/warden connect` joins the core through its door
 * (WARDEN_NODE is `false`, so a hand-over to Node could only fail) and `warden open` reaches it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../app/policy/defaults';
import { runOpenCommand } from '../../main/cli/open-command';
import { createCore } from '../../main/core/core';
import { runningCore } from '../../main/core/control-channel';
import { captureIo } from '../helpers/capture-io';
import { execWords } from '../helpers/desktop-exec';
import { everythingServer } from '../helpers/everything-core';
import { initializeRequest, jsonLines } from '../helpers/mcp-messages';
import { tempDirEach } from '../helpers/temp-dir';
import { runWarden } from '../helpers/warden-bin';

const front = join(import.meta.dirname, '../../bin/warden');

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

let dir = '';
tempDirEach('warden-login-start-', (d) => (dir = d));
let started: ChildProcess | undefined;
afterEach(async () => {
  if (started && started.exitCode === null && started.signalCode === null) {
    const gone = new Promise((resolve) => started!.once('exit', resolve));
    started.kill('SIGTERM');
    await gone;
  }
  started = undefined;
});

describe.skipIf(process.platform !== 'linux')('a Warden started by its login entry', () => {
  it('serves the door that warden connect joins, and warden open signs a browser in', async () => {
    const state = join(dir, 'state');
    const session = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'cfg'), PATH: process.env.PATH ?? '' };
    const core = await createCore({ wardenHome: state });
    await core.config.addServer({
      name: 'everything',
      launch: { command: process.execPath, args: [everythingServer, 'stdio'] },
      policy: { ...defaultPolicy(), isolation: 'off' },
      acknowledged: true,
    });
    await core.close();

    const port = await freePort();
    const on = await runWarden(['autostart', 'on', '--gateway-port', String(port)], {
      ...session,
      WARDEN_HOME: state,
    });
    expect(on.code, on.stderr).toBe(0);
    const entry = await readFile(join(dir, 'cfg/autostart/mcp-warden.desktop'), 'utf8');
    const [command, ...args] = execWords(/^Exec=(.*)$/m.exec(entry)![1]!);

    // The session's launcher: its own environment (the state folder comes from the entry).
    let log = '';
    started = spawn(command!, args, { env: session, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    // Its doors and control channel are open once it says where it serves (its last line).
    await expect
      .poll(() => log, { timeout: 20_000, interval: 100 })
      .toContain('Warden is serving at');
    expect(await runningCore(state)).toBeDefined();
    expect(log).toContain(`MCP gateway at http://127.0.0.1:${port}/`);
    expect(log).not.toMatch(/Session token/);

    const joined = await runFront(state);
    expect(joined.code, joined.err).toBe(0);
    expect(joined.out).toContain('"id":1');
    expect(joined.out).toContain('"result"');

    const { io, out } = captureIo();
    const opened: string[] = [];
    expect(
      await runOpenCommand(io, { wardenHome: state, openBrowser: (u) => opened.push(u) }),
    ).toBe(0);
    expect(opened).toHaveLength(1);
    expect(out.stdout).toMatch(
      /^Opening the control panel at http:\/\/[0-9a-f]{32}\.localhost:\d+\/ in your browser/,
    );
  }, 60_000);
});

/** `bin/warden connect everything` as a client's config starts it; Node is `false` here. */
function runFront(state: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(front, ['connect', 'everything'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        WARDEN_HOME: state,
        WARDEN_NODE: '/bin/false',
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":1')) child.stdin.end();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.write(jsonLines(initializeRequest('login-start')));
    child.once('close', (code) => resolve({ code, out, err }));
  });
}
