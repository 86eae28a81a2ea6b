/**
 * Another local user against a running `warden serve`: while a stand-in browser (started through
 * `$BROWSER`, as the opener would start a real one) stays alive, a process of that user reads
 * every /proc/*\/cmdline and /proc/*\/environ it may and every file named there, and tries each
 * token-like string on the WebSocket, the sign-in and the MCP gateway. It must get nowhere.
 *
 * Runs as root with an unprivileged user to attack from (WARDEN_TEST_USER, default wtest), as CI
 * does; elsewhere it is skipped, saying why.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noOtherUser, otherUser as user } from '../helpers/other-user';

const repoRoot = join(import.meta.dirname, '..', '..');
const why = noOtherUser;

/** Polls `check` until it is true; fails with `what` after `ms`. */
async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not happen in ${ms} ms:\n${out}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

interface AttackReport {
  seen: {
    processes: number;
    cmdlines: number;
    environs: number;
    files: string[];
    standIn: boolean;
  };
  tried: number;
  access: { how: string; c: string }[];
}

let root: string;
let serve: ChildProcess | undefined;
let out = '';
let standInOut: string;

function upgrade(port: number, extra: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/ws',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Protocol': 'warden.v1',
        Origin: `http://127.0.0.1:${port}`,
        ...extra,
      },
    });
    req.on('upgrade', (_res, socket) => (socket.destroy(), resolve(true)));
    req.on('response', (res) => (res.resume(), resolve(false)));
    req.on('error', () => resolve(false));
    req.end();
  });
}

beforeAll(async () => {
  if (why) return;
  if (!existsSync(join(repoRoot, 'out', 'cli')))
    throw new Error('the CLI must be built (npm run build)');
  root = await mkdtemp(join(tmpdir(), 'warden-local-user-'));
  // Warden's home as a user's config folder usually is: others may look into the folders above.
  await chmod(root, 0o755);
  const home = join(root, 'home');
  const scripts = join(root, 'scripts');
  for (const dir of [home, scripts]) {
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
  }
  for (const name of ['stand-in-browser.mjs', 'local-attacker.mjs'])
    await copyFile(join(import.meta.dirname, 'fixtures', name), join(scripts, name));
  standInOut = join(root, 'stand-in.json');
  const browser = join(scripts, 'stand-in-browser');
  await writeFile(
    browser,
    `#!/bin/sh\nexec ${process.execPath} ${join(scripts, 'stand-in-browser.mjs')} "$@"\n`,
    { mode: 0o755 },
  );
  serve = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'warden.js'), 'serve', '--port', '0', '--gateway-port', '0'],
    {
      cwd: repoRoot,
      env: { ...process.env, WARDEN_HOME: home, BROWSER: browser, STAND_IN_OUT: standInOut },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  serve.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await waitFor(
    () => /Warden is serving at/.test(out) && /MCP gateway at/.test(out),
    'warden serve printing its addresses',
  );
  await waitFor(() => existsSync(standInOut), 'the stand-in browser starting');
}, 90_000);

afterAll(async () => {
  if (why) return;
  try {
    const { pid } = JSON.parse(await readFile(standInOut, 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
  } catch {
    // never started
  }
  serve?.kill('SIGTERM');
  await new Promise((done) => (serve?.exitCode !== null ? done(null) : serve.once('exit', done)));
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(why !== undefined)(`another local user (${user}) during warden serve`, () => {
  it('finds no credential in any argv, environment or readable file, and gets no access', async () => {
    const served = /Warden is serving at http:\/\/[0-9a-f]{32}\.localhost:(\d+)\//.exec(out);
    const webPort = Number(served?.[1]);
    const gatewayPort = Number(/MCP gateway at http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
    const report = JSON.parse(
      execFileSync(
        'setpriv',
        [
          `--reuid=${user}`,
          `--regid=${user}`,
          '--init-groups',
          process.execPath,
          join(root, 'scripts', 'local-attacker.mjs'),
          String(webPort),
          String(gatewayPort),
        ],
        { encoding: 'utf8', timeout: 120_000, cwd: '/' },
      ),
    ) as AttackReport;
    // The attack really looked: it read other processes and saw the browser's arguments.
    expect(report.seen.cmdlines).toBeGreaterThan(5);
    expect(report.seen.standIn).toBe(true);
    expect(report.tried).toBeGreaterThan(0);
    expect(report.access).toEqual([]);

    // The browser itself did get in, through the file only its user could read.
    const standIn = JSON.parse(await readFile(standInOut, 'utf8')) as {
      target: string;
      session?: string;
    };
    expect(standIn.target).toMatch(/^file:\/\//);
    expect(standIn.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      await upgrade(webPort, {
        'Sec-WebSocket-Protocol': `warden.v1, warden.token.${standIn.session!}`,
      }),
    ).toBe(true);
    // And the token printed on the terminal works for a script.
    const token = /Session token [^:]*: ([A-Za-z0-9_-]+)\n/.exec(out)?.[1] ?? '';
    expect(
      await upgrade(webPort, { 'Sec-WebSocket-Protocol': `warden.v1, warden.token.${token}` }),
    ).toBe(true);
  }, 180_000);
});
