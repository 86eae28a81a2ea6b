/**
 * The audit log of a core that relays one session opens after its server's spawn, and starts its
 * writer thread later still, once the launch is over: the thread's start-up is CPU the server's
 * own start-up would wait for. A core that runs for long starts the thread with the log.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { callEvent } from '../audit/audit-test-events';
import { WRITER_THREAD_DIR, WRITER_THREAD_FILE } from '../audit/writer-thread-client';
import { findBuiltDir } from '../sandbox/built-output';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { writerThreads } from '../../test/helpers/writer-threads';
import { DEFERRED_WRITER_THREAD_DELAY_MS, coreAudit } from './core-audit';

const builtDir = await findBuiltDir(WRITER_THREAD_DIR, WRITER_THREAD_FILE);
if (!builtDir) throw new Error(`out/${WRITER_THREAD_DIR} is missing: run "npm run build" first`);
const writerThread = join(builtDir, WRITER_THREAD_FILE);

let dir = '';
tempDirEach('warden-core-audit-', (d) => (dir = d));

const open = (defer: boolean) =>
  coreAudit({
    wardenHome: dir,
    secretsFor: () => [],
    retention: () => undefined,
    defer,
    writerThread,
  });

// The writer thread is told apart by its nice value, read from /proc, which only Linux has.
describe.skipIf(process.platform !== 'linux')('the core audit log', () => {
  it('of a session core writes itself until its writer thread starts, after the launch', async () => {
    const before = await writerThreads();
    const log = await open(true);
    try {
      await log.open();
      const opened = performance.now();
      log.store.append(callEvent('files', 1, { path: '/srv/a' }));
      await log.store.flush();
      expect(log.store.pendingCount()).toBe(0);
      expect(await writerThreads()).toBe(before);
      await vi.waitFor(async () => expect(await writerThreads()).toBe(before + 1), {
        timeout: DEFERRED_WRITER_THREAD_DELAY_MS + 5000,
        interval: 100,
      });
      expect(performance.now() - opened).toBeGreaterThanOrEqual(
        DEFERRED_WRITER_THREAD_DELAY_MS - 50,
      );
      log.store.append(callEvent('files', 2, { path: '/srv/b' }));
      expect((await log.store.query({ limit: 10 })).rows.map((r) => r.id)).toEqual([2, 1]);
      expect(log.store.verify()).toMatchObject({ ok: true, rows: 2 });
    } finally {
      log.stop();
      await log.store.close();
    }
  });

  it('of a core that runs for long starts its writer thread with the log', async () => {
    const before = await writerThreads();
    const log = await open(false);
    try {
      // The thread sets its own priority once it runs.
      await vi.waitFor(async () => expect(await writerThreads()).toBe(before + 1), {
        timeout: DEFERRED_WRITER_THREAD_DELAY_MS / 2,
        interval: 20,
      });
    } finally {
      log.stop();
      await log.store.close();
    }
  });
});
