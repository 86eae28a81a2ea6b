/**
 * A client that has sent all it will send and closed its writing side still gets its answers,
 * as from a server run bare (`echo REQUEST | warden connect NAME`), and a session that ends for
 * any reason ends the client's connection too, so that `warden connect` exits and the client sees
 * its server gone instead of waiting on answers that will never come.
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { type Socket, connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Core } from '../../main/core/core';
import type { FrontDoors } from '../../main/gateway/front-doors';
import { isLive, localChannelPath } from '../../main/gateway/local-channel';
import { countingLocalChannel } from '../helpers/counting-channel';
import {
  initializeRequest,
  initializedNotification,
  jsonLines,
  slowEverythingCall,
} from '../helpers/mcp-messages';
import { everythingCore } from '../helpers/everything-core';
import { tempDirEach } from '../helpers/temp-dir';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/warden.js');

const initialize = initializeRequest('half-close', { version: '1.0.0' });
const initialized = initializedNotification;
const slowCall = slowEverythingCall;
const lines = jsonLines;

let home = '';
let core: Core;
let doors: FrontDoors;

tempDirEach('warden-half-close-', (d) => (home = d));
beforeEach(async () => {
  ({ core, doors } = await everythingCore(home));
});
afterEach(async () => {
  await doors.close();
  await core.close();
});

/** Joins the core as `warden connect` does; resolves with the socket once the core said yes. */
async function join_(): Promise<{ socket: Socket; received: () => string; ended: Promise<void> }> {
  const socket = connect(localChannelPath(home));
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.write(`${JSON.stringify({ server: 'everything', client: 'test' })}\n`);
  await expect.poll(() => text, { timeout: 10_000 }).toContain('"ok":true');
  return { socket, received: () => text, ended };
}

const answers = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{') && !l.includes('"ok":true'))
    .map((l) => JSON.parse(l) as { id?: number; result?: unknown; error?: unknown })
    .filter((m) => m.id !== undefined);

describe('a client that closes its writing side', () => {
  it('gets the answers to what it sent, a call in flight included, and then the end', async () => {
    const { socket, received, ended } = await join_();
    socket.end(lines(initialize, initialized, slowCall));
    await ended;
    const got = answers(received());
    expect(got.map((m) => m.id)).toEqual([1, 2]);
    expect(got.every((m) => m.result !== undefined)).toBe(true);
    expect(core.supervisor.list().filter((v) => v.state.kind === 'running')).toEqual([]);
  });
});

describe('a session that ends', () => {
  it('ends the client connection when the user stops the instance', async () => {
    const { socket, received, ended } = await join_();
    socket.write(lines(initialize, initialized));
    await expect.poll(() => answers(received()).length, { timeout: 10_000 }).toBe(1);
    const running = core.supervisor.list().find((v) => v.state.kind === 'running')!;
    await core.supervisor.stop(running.id);
    await ended;
    socket.destroy();
  });

  it('makes a joined `warden connect` exit, its client still holding its input open', async () => {
    const child = spawn(process.execPath, [bin, 'connect', 'everything'], {
      env: { ...process.env, WARDEN_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(lines(initialize, initialized));
    await expect.poll(() => answers(out).length, { timeout: 20_000 }).toBe(1);
    const running = core.supervisor.list().find((v) => v.state.kind === 'running')!;
    await core.supervisor.stop(running.id);
    // stdin stays open: before, the process went on waiting for the client.
    expect(await exited).toBe(0);
    child.stdin.destroy();
  });
});

describe('the local channel', () => {
  it('lets go of connections that end before their first line, and of half-open ones when it closes', async () => {
    const other = join(home, 'other');
    await mkdir(other);
    const { channel, sessions } = await countingLocalChannel(other);
    // Liveness probes connect and go at once, as every `warden` command's check does.
    for (let i = 0; i < 5; i++) expect(await isLive(channel.path)).toBe(true);
    // A client that said hello, was answered, and then only ended its writing side.
    const socket = connect(channel.path);
    await new Promise((resolve) => socket.once('connect', resolve));
    const answered = new Promise((resolve) => socket.once('data', resolve));
    socket.write(`${JSON.stringify({ server: 'x' })}\n`);
    await answered;
    const gone = new Promise((resolve) => socket.once('close', resolve));
    socket.end();
    socket.resume();
    // Before, a probe's connection stayed half-open in the core and the close never returned.
    await channel.close();
    await gone;
    expect(sessions()).toBe(1);
  });
});
