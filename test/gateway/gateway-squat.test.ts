/**
 * Another user squats the gateway port before Warden. `warden serve` must refuse to run with it
 * (exit 1, naming the owner) and revoke the tokens clients hold; `clients connect --transport
 * http` must refuse to point a client at it; and once the port is Warden's again, the revoked
 * tokens are replaced in the clients' files. The squatter runs as WARDEN_TEST_USER when this runs
 * as root (as CI does), else as this user.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClientsCommand, runImportCommand } from '../../main/clients/clients-cli';
import type { ClientsContext } from '../../main/clients/clients-context';
import { type Core, createCore } from '../../main/core/core';
import { ClientTokens } from '../../main/gateway/client-tokens';
import { startGateway } from '../../main/gateway/start-gateway';
import { runServeCommand } from '../../main/web/serve-command';
import { fakeHomeOverrides, fixturesDir } from '../clients/clients-fixture';
import { removeTree, tempDirEach } from '../helpers/temp-dir';
import { captureIo } from '../helpers/capture-io';

const asOther = process.getuid?.() === 0;
const user = asOther ? (process.env.WARDEN_TEST_USER ?? 'wtest') : userInfo().username;

let root = '';
let home: string;
let wardenHome: string;
let staticDir: string;
let squatter: ChildProcess | undefined;
let received = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Another user's listener on `port` that keeps whatever it receives, run by `binary`. */
async function squat(port: number, binary = process.execPath): Promise<void> {
  const script = `require('net').createServer((s) => s.on('data', (d) => process.stdout.write(d))).listen(${port}, '127.0.0.1', () => process.stdout.write('listening\\n'));`;
  const argv = [binary, '-e', script];
  squatter = asOther
    ? spawn('setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', ...argv], {
        cwd: '/',
      })
    : spawn(argv[0]!, argv.slice(1));
  squatter.stdout!.setEncoding('utf8').on('data', (c: string) => (received += c));
  const until = Date.now() + 20_000;
  while (!received.includes('listening')) {
    if (Date.now() > until) throw new Error('the squatter did not start');
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function unsquat(): Promise<void> {
  if (!squatter || squatter.exitCode !== null || squatter.signalCode !== null) return;
  const exited = new Promise((done) => squatter!.once('exit', done));
  squatter.kill('SIGKILL');
  await exited;
}

/** Runs `warden serve` on this home until `stop` resolves (after `during` ran). */
async function serve(port: number, during: () => Promise<void> = () => Promise.resolve()) {
  const run = captureIo();
  let stop!: () => void;
  const stopped = new Promise<void>((done) => (stop = done));
  const status = runServeCommand(
    ['--no-open', '--port', '0', '--gateway-port', String(port)],
    run.io,
    {
      staticDir,
      env: { WARDEN_HOME: wardenHome },
      waitForStop: () => stopped,
    },
  );
  const raced = await Promise.race([
    status.then((s) => ({ s })),
    (async () => {
      const until = Date.now() + 20_000;
      while (!run.out.stdout.includes('Session token')) {
        if (Date.now() > until) throw new Error(`serve did not start: ${run.out.stderr}`);
        await new Promise((done) => setTimeout(done, 50));
        if (run.out.stderr.includes('remedy')) return undefined;
      }
      await during();
      return undefined;
    })(),
  ]);
  stop();
  return { status: raced?.s ?? (await status), ...run.out };
}

let core: Core | undefined;
let overrides: Partial<ClientsContext>;

tempDirEach('warden-squat-', (d) => (root = d));
beforeEach(async () => {
  home = join(root, 'home');
  wardenHome = join(root, 'warden');
  staticDir = join(root, 'static');
  await mkdir(staticDir, { recursive: true });
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Warden</title>');
  await mkdir(join(home, '.cursor'), { recursive: true });
  await copyFile(join(fixturesDir, 'cursor/mcp.json.fixture'), join(home, '.cursor', 'mcp.json'));
  overrides = fakeHomeOverrides(home);
  received = '';
});
afterEach(async () => {
  await unsquat();
  await core?.close();
  core = undefined;
});

// The squatter is named by its executable's path: its thread name says `MainThread` on Node 24.
const squatterPath = realpathSync(process.execPath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ownerLine = (port: number) =>
  new RegExp(
    `127\\.0\\.0\\.1:${port} is held by a process of user ${user} \\(uid \\d+\\), pid \\d+ \\(${squatterPath}\\)`,
  );

describe('a squatted gateway port', () => {
  it('warden serve refuses it (exit 1) and names the owner', async () => {
    const port = await freePort();
    await squat(port);
    const run = await serve(port);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(ownerLine(port));
    expect(run.stderr).toContain('remedy: stop that program');
    expect(run.stdout).not.toContain('Warden is serving');
  });

  it("warden serve shows a squatter's program path escaped: it cannot write to the terminal", async () => {
    // The squatter's user chooses its program's name: here a copy of Node whose name sets the
    // clipboard (OSC 52) and starts a new line of Warden's own.
    const dir = await mkdtemp(join(tmpdir(), 'warden-squat-bin-'));
    try {
      await chmod(dir, 0o755);
      const binary = join(dir, 'x\x1b]52;c;ZXZpbA==\x07\nwarden: all clear');
      await copyFile(process.execPath, binary);
      await chmod(binary, 0o755);
      const port = await freePort();
      await squat(port, binary);
      const run = await serve(port);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('is held by a process of user');
      expect(run.stderr).toContain('\\x1b]52;c;ZXZpbA==\\x07\\x0awarden: all clear');
      expect(run.stderr).not.toContain('\x1b');
      expect(run.stderr).not.toContain('\x07');
      expect(run.stderr.split('\n').filter((line) => line.startsWith('warden: all clear'))).toEqual(
        [],
      );
    } finally {
      await removeTree(dir);
    }
  });

  it('the app core reports it, with its owner, for the red banner', async () => {
    const port = await freePort();
    await squat(port);
    core = await createCore({ wardenHome });
    const started = await startGateway(core, port);
    expect(started.doors).toBeUndefined();
    const reply = await core.handle('gateway.status', {});
    expect(reply).toMatchObject({ ok: true, value: { kind: 'port-taken', port } });
    const status = started.status;
    if (status.kind !== 'port-taken') throw new Error('expected port-taken');
    expect(`127.0.0.1:${port} is held by ${status.owner}`).toMatch(ownerLine(port));
    expect(status.remedy).toContain('stop that program');
  });

  it("the app's own core points clients at the port its gateway holds", async () => {
    core = await createCore({ wardenHome });
    const started = await startGateway(core, 0);
    if (started.status.kind !== 'running') throw new Error('the gateway did not start');
    // A file picked by a name of its own: a `.cursor/mcp.json` outside the user's home (this
    // core's) is a project's, where no token is written.
    const path = join(home, 'cursor-mcp.json');
    await copyFile(join(home, '.cursor', 'mcp.json'), path);
    expect(await core.handle('clients.import', { client: 'cursor', path })).toMatchObject({
      ok: true,
    });
    const preview = await core.handle('clients.connectPreview', {
      client: 'cursor',
      path,
      transport: 'http',
    });
    expect(JSON.stringify(preview)).toContain(`http://127.0.0.1:${started.status.port}/mcp/`);
    await started.doors?.close();
  });

  it('clients connect --transport http refuses to point a client at it, with the remedy', async () => {
    const port = await freePort();
    core = await createCore({ wardenHome });
    await runImportCommand(['cursor', '--yes'], captureIo().io, core, overrides);
    const before = await readFile(join(home, '.cursor', 'mcp.json'), 'utf8');
    await squat(port);
    for (const args of [
      ['connect', 'cursor', '--transport', 'http', '--gateway-port', String(port), '--yes'],
      ['connect', 'cursor', '--transport', 'http', '--gateway-port', String(port), '--dry-run'],
    ]) {
      const run = captureIo();
      expect(await runClientsCommand(args, run.io, core, overrides)).toBe(1);
      expect(run.out.stderr).toMatch(ownerLine(port));
      expect(run.out.stderr).toContain('--transport stdio');
    }
    expect(await readFile(join(home, '.cursor', 'mcp.json'), 'utf8')).toBe(before);
    expect(received).not.toContain('Bearer');

    // Not running at all is refused too: nothing proves the port is Warden's.
    await unsquat();
    const idle = captureIo();
    expect(
      await runClientsCommand(
        ['connect', 'cursor', '--transport', 'http', '--gateway-port', String(port), '--yes'],
        idle.io,
        core,
        overrides,
      ),
    ).toBe(1);
    expect(idle.out.stderr).toContain('start "warden serve"');
  });

  it("revokes the clients' tokens when it finds the port taken, and replaces them once it is Warden's", async () => {
    const port = await freePort();
    core = await createCore({ wardenHome });
    await runImportCommand(['cursor', '--yes'], captureIo().io, core, overrides);
    const file = join(home, '.cursor', 'mcp.json');
    const tokenIn = async () =>
      /Bearer ([A-Za-z0-9_-]+)/.exec(await readFile(file, 'utf8'))?.[1] ?? '';
    const first = await serve(port, async () => {
      const run = captureIo();
      const args = [
        'connect',
        'cursor',
        '--transport',
        'http',
        '--gateway-port',
        String(port),
        '--yes',
      ];
      expect(await runClientsCommand(args, run.io, core!, overrides), run.out.stderr).toBe(0);
    });
    expect(first.status).toBe(0);
    const old = await tokenIn();
    const tokens = new ClientTokens(wardenHome);
    expect(await tokens.check(old)).toBe(true);
    const listed = captureIo();
    await runClientsCommand(['list'], listed.io, core, overrides);
    expect(listed.out.stdout).toContain('gateway token: active');

    await squat(port);
    const squatted = await serve(port);
    expect(squatted.status).toBe(1);
    expect(squatted.stderr).toContain('revoked the gateway tokens of cursor');
    expect(await tokens.check(old)).toBe(false);

    await unsquat();
    // The gateway tells the user's own files from a project's by the home: this one's.
    const realHome = process.env.HOME;
    process.env.HOME = home;
    const back = await serve(port).finally(() => (process.env.HOME = realHome));
    expect(back.status).toBe(0);
    expect(back.stdout).toContain('new gateway token written');
    const fresh = await tokenIn();
    expect(fresh).not.toBe(old);
    expect(await tokens.check(fresh)).toBe(true);

    // And the user can revoke it.
    const revoked = captureIo();
    expect(await runClientsCommand(['revoke', 'cursor'], revoked.io, core, overrides)).toBe(0);
    expect(await tokens.check(fresh)).toBe(false);
  });
});

if (asOther) {
  // The squatter must really be another user, or the test would not show what it claims.
  execFileSync('id', ['-u', user]);
}
