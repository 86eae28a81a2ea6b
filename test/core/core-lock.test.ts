/**
 * One serving core per state folder: a second `warden serve` on the same WARDEN_HOME is refused
 * with the PID of the first, a stale lock (its process gone, or garbage) is taken over, and two
 * cores racing over one stale lock never both win. A lock from another PID namespace is held.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runServeCommand } from '../../main/web/serve-command';
import { acquireCoreLock, coreLockPath, processStart } from '../../main/core/core-lock';

const warden = join(import.meta.dirname, '../../bin/warden.js');
/** Whether this machine lets a process make user and PID namespaces (util-linux `unshare`). */
const unshareTry = spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', 'true']);
const canUnshare = unshareTry.status === 0;
const unshareSkip =
  unshareTry.error?.message ?? (unshareTry.stderr?.toString().trim() || 'unshare failed');

let home: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-lock-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(home, { recursive: true, force: true });
});

/** A live process that is not this one, and its PID. */
function liveProcess(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

async function writeLock(content: string): Promise<void> {
  await mkdir(join(home, 'run'), { recursive: true });
  await writeFile(coreLockPath(home), content);
}

describe('acquireCoreLock', () => {
  it('refuses a second core with the PID of the first, and frees the folder on release', async () => {
    const first = await acquireCoreLock(home, 'warden serve');
    expect(first.ok).toBe(true);
    const second = await acquireCoreLock(home, 'warden serve');
    expect(second.ok).toBe(false);
    if (second.ok || !first.ok) return;
    expect(second.error.message).toBe(
      `warden serve (PID ${process.pid}) is already running for ${home}`,
    );
    expect(second.error.remedy).toContain(`kill ${process.pid}`);
    expect(second.error.remedy).toContain('"warden open" shows its control panel');
    expect(second.error.remedy).toContain('WARDEN_HOME');
    await first.value.release();
    expect(existsSync(coreLockPath(home))).toBe(false);
    const third = await acquireCoreLock(home, 'warden serve');
    expect(third.ok).toBe(true);
    if (third.ok) await third.value.release();
  });

  it('refuses when another live process holds the lock', async () => {
    const other = liveProcess();
    await writeLock(JSON.stringify({ pid: other.pid, what: 'the Warden app', since: 'x' }));
    const r = await acquireCoreLock(home, 'warden serve');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain(`the Warden app (PID ${other.pid})`);
  });

  it.each([
    [
      'its process is gone',
      async () => JSON.stringify({ pid: await deadPid(), what: 'warden serve' }),
    ],
    ['it is garbage', () => Promise.resolve('{"pid": "x"')],
    ['it is empty', () => Promise.resolve('')],
  ])('takes over a stale lock: %s', async (_why, content) => {
    await writeLock(await content());
    const r = await acquireCoreLock(home, 'warden serve');
    expect(r.ok).toBe(true);
    expect(JSON.parse(await readFile(coreLockPath(home), 'utf8'))).toMatchObject({
      pid: process.pid,
      what: 'warden serve',
    });
    if (r.ok) await r.value.release();
  });

  const linux = process.platform === 'linux';
  it.skipIf(!linux)(
    'names the boot and the start time of its process (Linux only: elsewhere the PID alone)',
    async () => {
      const r = await acquireCoreLock(home, 'warden serve');
      const mine = processStart(process.pid);
      expect(mine?.start).toMatch(/^\d+$/);
      expect(JSON.parse(await readFile(coreLockPath(home), 'utf8'))).toMatchObject({
        pid: process.pid,
        ...mine,
      });
      if (r.ok) await r.value.release();
    },
  );

  it.skipIf(!linux)(
    'a live process of that PID holds the lock only as the start it names (Linux only)',
    async () => {
      const other = liveProcess();
      for (let i = 0; i < 50 && !processStart(other.pid); i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const start = processStart(other.pid)!;
      const lockOf = (boot: string, begun: string) =>
        JSON.stringify({ pid: other.pid, what: 'the Warden app', since: 'x', boot, start: begun });
      // The very process: refused.
      await writeLock(lockOf(start.boot, start.start));
      const same = await acquireCoreLock(home, 'warden serve');
      expect(same.ok).toBe(false);
      // Its PID, but a process started later (a restart gave the PID to something else): stale.
      await writeLock(lockOf(start.boot, String(Number(start.start) - 1)));
      const later = await acquireCoreLock(home, 'warden serve');
      expect(later.ok).toBe(true);
      if (later.ok) await later.value.release();
      // Its PID and start time, but another boot: stale.
      await writeLock(lockOf('00000000-0000-0000-0000-000000000000', start.start));
      const reboot = await acquireCoreLock(home, 'warden serve');
      expect(reboot.ok).toBe(true);
      if (reboot.ok) await reboot.value.release();
    },
  );

  it.skipIf(!linux)(
    'a lock from another PID namespace is held, whatever its PID is here (Linux only)',
    async () => {
      // Its PID is this test's own here, which a lock from this namespace would hold too; PID 1
      // (alive here, started long before) and a dead PID would be stale but for the namespace.
      for (const pid of [1, await deadPid()]) {
        await writeLock(
          JSON.stringify({
            pid,
            what: 'warden serve',
            since: 'x',
            pidns: 'pid:[1]',
            boot: 'b',
            start: '1',
          }),
        );
        const r = await acquireCoreLock(home, 'the Warden app');
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.message).toContain(`warden serve (PID ${pid} in another PID namespace`);
          expect(r.error.remedy).toContain(coreLockPath(home));
        }
      }
    },
  );

  it.skipIf(!linux || !canUnshare)(
    `a serve in another PID namespace keeps a serve here from the folder (Linux only${canUnshare ? '' : `; skipped: ${unshareSkip}`})`,
    async () => {
      const inner = spawn(
        'unshare',
        [
          '--user',
          '--map-root-user',
          '--pid',
          '--fork',
          '--mount-proc',
          process.execPath,
          warden,
          'serve',
          '--no-open',
          '--no-token',
          '--gateway-port',
          '0',
        ],
        { env: { ...process.env, WARDEN_HOME: home }, stdio: 'ignore' },
      );
      children.push(inner);
      let lock: { pid?: number; pidns?: string } = {};
      for (let i = 0; i < 300 && lock.pid === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lock = JSON.parse(
          await readFile(coreLockPath(home), 'utf8').catch(() => '{}'),
        ) as typeof lock;
      }
      expect(lock.pid).toBeLessThan(10);
      expect(lock.pidns).not.toBe(readlinkSync('/proc/self/ns/pid'));
      const r = await acquireCoreLock(home, 'warden serve');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toContain('in another PID namespace');
    },
    30_000,
  );

  it('of many cores racing over one stale lock, exactly one wins', async () => {
    await writeLock(JSON.stringify({ pid: await deadPid(), what: 'warden serve' }));
    // Each racer sees the others' PID as alive only once it holds the lock: this process plays
    // them all, so "alive" is "someone else already won".
    const results = await Promise.all(
      Array.from({ length: 8 }, () => acquireCoreLock(home, 'warden serve')),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results) if (r.ok) await r.value.release();
  });
});

describe('warden serve', () => {
  it('a second serve on the same state folder is refused with the PID of the first', async () => {
    const other = liveProcess();
    await writeLock(JSON.stringify({ pid: other.pid, what: 'warden serve', since: 'x' }));
    const err: string[] = [];
    let created = false;
    const status = await runServeCommand(
      ['--no-open'],
      { stdout: () => undefined, stderr: (s) => void err.push(s) },
      {
        env: { WARDEN_HOME: home },
        staticDir: home,
        createCore: () => {
          created = true;
          return Promise.reject(new Error('must not start'));
        },
      },
    );
    expect(status).toBe(1);
    expect(created).toBe(false);
    expect(err.join('')).toContain(
      `warden serve (PID ${other.pid}) is already running for ${home}`,
    );
  });
});
