/**
 * `bin/warden`, the shell front of `warden connect`: with a core of this user running it joins
 * through the local channel's door (named pipes) and relays with `cat`, without Node; in any
 * doubt it hands the session to `bin/warden.js`. These tests run the real script against a real
 * core's front doors. Where a test must show the door was taken, WARDEN_NODE is `false`, so a
 * hand-over could only fail; where it must show the door was not taken, the same `false` makes
 * the hand-over visible (exit 1) and the core counts no session.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  openSync,
  readSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Core } from '../../main/core/core';
import { type CoreLock, acquireCoreLock, processStart } from '../../main/core/core-lock';
import { type FrontDoors, startFrontDoors } from '../../main/gateway/front-doors';
import {
  initializeRequest,
  initializedNotification,
  jsonLines,
  slowEverythingCall,
} from '../helpers/mcp-messages';
import { everythingCore } from '../helpers/everything-core';
import { tempDirEach } from '../helpers/temp-dir';

const root = join(import.meta.dirname, '../..');
const front = join(root, 'bin/warden');
const FALSE = '/bin/false';

const initialize = initializeRequest('door', { version: '1.0.0' });
const slowCall = slowEverythingCall;
const lines = jsonLines;
const answers = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { id?: number; result?: unknown })
    .filter((m) => m.id !== undefined);

let home = '';
let run = '';
let core: Core;
let doors: FrontDoors;
let lock: CoreLock;
let sessions = 0;

tempDirEach('warden-door-', (d) => {
  home = d;
  run = join(d, 'run');
});
beforeEach(async () => {
  const acquired = await acquireCoreLock(home, 'the door test');
  if (!acquired.ok) throw new Error(acquired.error.message);
  lock = acquired.value;
  ({ core, doors } = await everythingCore(home));
  sessions = 0;
  const open = core.supervisor.open.bind(core.supervisor);
  core.supervisor.open = (...args: Parameters<typeof open>) => {
    sessions++;
    return open(...args);
  };
});
afterEach(async () => {
  await doors.close();
  await core.close();
  await lock.release();
});

interface Front {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function startFront(
  args: string[],
  node = FALSE,
  env: NodeJS.ProcessEnv = {},
  shell?: string,
  script = front,
): Front {
  const child = spawn(shell ?? script, shell ? [script, ...args] : args, {
    env: { ...process.env, WARDEN_HOME: home, WARDEN_NODE: node, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  // A front that gives up at once (FALSE) may be gone before what a test sends it is written.
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? 128 : code)),
  );
  return { child, out: () => out, err: () => err, exited };
}

const sessionPipes = () => readdirSync(run).filter((n) => /^d[0-9]+\.[io]$/.test(n));
const running = () => core.supervisor.list().filter((v) => v.state.kind === 'running');

describe('bin/warden with a core running', () => {
  // Its own /bin/sh (dash on Debian), and bash (macOS's /bin/sh).
  it.each([['/bin/sh'], ['bash']])(
    'joins through the door, without Node, and answers what was sent before the client ended (%s)',
    async (shell) => {
      expect(existsSync(join(run, 'door'))).toBe(true);
      const f = startFront(['connect', 'everything', '--client', 'door-test'], FALSE, {}, shell);
      f.child.stdin!.end(lines(initialize, initializedNotification, slowCall));
      expect(await f.exited).toBe(0);
      expect(f.err()).toBe('');
      const got = answers(f.out());
      expect(got.map((m) => m.id)).toEqual([1, 2]);
      expect(got.every((m) => m.result !== undefined)).toBe(true);
      expect(sessions).toBe(1);
      // The session's pipes are gone once the core has them open.
      expect(sessionPipes()).toEqual([]);
      await expect.poll(() => running().length).toBe(0);
    },
  );

  it("is taken by the packaged app's launcher too", async () => {
    // An installed layout, whose app (the runtime the launcher would hand over to) only fails.
    const resources = join(home, 'opt', 'resources');
    await mkdir(join(resources, 'bin'), { recursive: true });
    const launcher = join(resources, 'bin', 'warden');
    copyFileSync(join(root, 'resources/packaging/bin/warden'), launcher);
    copyFileSync(join(root, 'bin/warden-door.sh'), join(resources, 'bin', 'warden-door.sh'));
    writeFileSync(join(home, 'opt', 'mcp-warden'), '#!/bin/sh\nexit 1\n');
    chmodSync(launcher, 0o755);
    chmodSync(join(home, 'opt', 'mcp-warden'), 0o755);
    const f = startFront(['connect', 'everything'], FALSE, {}, undefined, launcher);
    f.child.stdin!.end(lines(initialize));
    expect(await f.exited).toBe(0);
    expect(answers(f.out()).map((m) => m.id)).toEqual([1]);
  });

  it('ends when the user stops the instance, its client still holding the input open', async () => {
    const f = startFront(['connect', 'everything']);
    f.child.stdin!.write(lines(initialize, initializedNotification));
    await expect.poll(() => answers(f.out()).length, { timeout: 20_000 }).toBe(1);
    await core.supervisor.stop(running()[0]!.id);
    expect(await f.exited).toBe(0);
    f.child.stdin!.destroy();
  });

  it('ends the session in the core when the client stops it', async () => {
    const f = startFront(['connect', 'everything']);
    f.child.stdin!.write(lines(initialize, initializedNotification));
    await expect.poll(() => answers(f.out()).length, { timeout: 20_000 }).toBe(1);
    expect(running()).toHaveLength(1);
    f.child.kill('SIGTERM');
    await f.exited;
    await expect.poll(() => running().length, { timeout: 10_000 }).toBe(0);
  });

  it('hands an unknown server to bin/warden.js, which says what there is', async () => {
    const f = startFront(['connect', 'nope'], process.execPath);
    f.child.stdin!.end();
    expect(await f.exited).toBe(1);
    expect(f.err()).toMatch(/no server named "nope"/);
    expect(sessionPipes()).toEqual([]);
  });

  it('hands anything but a plain connect to bin/warden.js', async () => {
    for (const args of [
      ['connect', 'everything', '--max-message-bytes', '100'],
      ['connect', '-everything'],
      ['connect', 'every thing'],
      ['connect', 'everything', '--client', 'a;b'],
      ['servers', 'list'],
    ]) {
      const f = startFront(args);
      f.child.stdin!.end();
      expect(await f.exited, args.join(' ')).toBe(1);
    }
    expect(sessions).toBe(0);
  });
});

describe('bin/warden in doubt about the door', () => {
  const refusedHere = async () => {
    const f = startFront(['connect', 'everything']);
    f.child.stdin!.end(lines(initialize));
    expect(await f.exited).toBe(1);
    expect(sessions).toBe(0);
    expect(sessionPipes()).toEqual([]);
  };

  it('does not take a door whose core has gone (its lock names a process that is no more)', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    writeFileSync(join(run, 'core.lock'), `${JSON.stringify({ pid: dead.pid, what: 'gone' })}\n`);
    await refusedHere();
  });

  it('does not take a door in a folder other users may enter', async () => {
    chmodSync(run, 0o755);
    await refusedHere();
    chmodSync(run, 0o700);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'does not take a door another user made (needs root to make one; skipped otherwise)',
    async () => {
      chownSync(join(run, 'door'), 65534, 65534);
      await refusedHere();
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'does not ask the door when the PID in the lock now belongs to another start of it (Linux only: the lock names the start there)',
    async () => {
      const other = join(home, 'other');
      await mkdir(join(other, 'run'), { recursive: true, mode: 0o700 });
      const door = join(other, 'run', 'door');
      execFileSync('mkfifo', ['-m', '600', door]);
      // Held open for reading, so that what the front writes to the door stays there to be seen.
      const reader = openSync(door, constants.O_RDONLY | constants.O_NONBLOCK);
      const asked = () => {
        const buffer = Buffer.alloc(4096);
        try {
          return buffer.subarray(0, readSync(reader, buffer)).toString();
        } catch {
          return ''; // EAGAIN: nothing was written
        }
      };
      const me = processStart(process.pid)!;
      const attempt = async (start: string) => {
        writeFileSync(
          join(other, 'run', 'core.lock'),
          `${JSON.stringify({ pid: process.pid, what: 'x', since: 'x', boot: me.boot, start })}\n`,
        );
        const f = startFront(['connect', 'everything'], FALSE, { WARDEN_HOME: other });
        f.child.stdin!.end(lines(initialize));
        expect(await f.exited).toBe(1);
        return asked();
      };
      try {
        // This process under another start time (a PID reused after a restart): not asked.
        expect(await attempt(String(Number(me.start) + 1))).toBe('');
        // The control: the start it has is asked (and, answering nothing, given up on).
        expect(await attempt(me.start)).toMatch(/^\d+ everything stdio\n$/);
      } finally {
        closeSync(reader);
      }
    },
  );

  it('gives up on a core that never answers within 3 s', async () => {
    const other = join(home, 'other');
    await mkdir(join(other, 'run'), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', ['-m', '600', join(other, 'run', 'door')]);
    // A live process holds the lock (this one), but nothing reads the door.
    writeFileSync(join(other, 'run', 'core.lock'), `${JSON.stringify({ pid: process.pid })}\n`);
    const started = Date.now();
    const f = startFront(['connect', 'everything'], FALSE, { WARDEN_HOME: other });
    f.child.stdin!.end(lines(initialize));
    expect(await f.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(
      readdirSync(join(other, 'run')).filter((n) => n !== 'door' && n !== 'core.lock'),
    ).toEqual([]);
  });
});

describe('the script', () => {
  const shellcheck = spawnSync('sh', ['-c', 'command -v shellcheck']).status === 0;
  // CI installs shellcheck (.ci/run); elsewhere it may be missing.
  it.skipIf(!shellcheck && !process.env.CI)(
    'passes shellcheck as a POSIX sh script, as does the packaged launcher (skipped when shellcheck is not installed)',
    () => {
      const r = spawnSync(
        'shellcheck',
        ['-x', '-s', 'sh', 'bin/warden', 'bin/warden-door.sh', 'resources/packaging/bin/warden'],
        { encoding: 'utf8', cwd: root },
      );
      expect(`${r.stdout}${r.stderr}${r.error?.message ?? ''}`).toBe('');
      expect(r.status).toBe(0);
    },
  );
});

describe('the door', () => {
  const ask = (line: string) => writeFileSync(join(run, 'door'), line);

  it('opens only named pipes of this user, never through a link, and survives junk', async () => {
    const elsewhere = join(home, 'elsewhere');
    await mkdir(elsewhere);
    execFileSync('mkfifo', [join(elsewhere, 'p.i'), join(elsewhere, 'p.o')]);
    symlinkSync(join(elsewhere, 'p.i'), join(run, 'd101.i'));
    symlinkSync(join(elsewhere, 'p.o'), join(run, 'd101.o'));
    writeFileSync(join(run, 'd102.i'), 'not a pipe');
    writeFileSync(join(run, 'd102.o'), 'not a pipe');
    ask('101 everything test\n102 everything test\n');
    ask(`${'x'.repeat(5000)}\nnot a request\n0 everything test\n103 ../x test\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sessions).toBe(0);
    // The door still serves a real request afterwards.
    const f = startFront(['connect', 'everything']);
    f.child.stdin!.end(lines(initialize));
    expect(await f.exited).toBe(0);
    expect(answers(f.out()).map((m) => m.id)).toEqual([1]);
    expect(sessions).toBe(1);
  });

  it('is removed when the core closes, with pipes left behind, and made again at start', async () => {
    execFileSync('mkfifo', [join(run, 'd555.i'), join(run, 'd555.o')]);
    await doors.close();
    expect(existsSync(join(run, 'door'))).toBe(false);
    doors = await startFrontDoors(core, { httpPort: 0 });
    expect(existsSync(join(run, 'door'))).toBe(true);
    expect(sessionPipes()).toEqual([]);
  });
});
