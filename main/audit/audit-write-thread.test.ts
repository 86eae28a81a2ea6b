import Database from 'better-sqlite3';
import { readFile } from 'node:fs/promises';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import type { AuditSecret } from '../../app/audit/redact';
import { findBuiltDir } from '../sandbox/built-output';
import { type AuditStore, type AuditStoreOptions, openAuditStore } from './audit-store';
import { callEvent, netEvent } from './audit-test-events';
import { WRITER_THREAD_DIR, WRITER_THREAD_FILE } from './writer-thread-client';
import { WRITER_NICE_INCREMENT } from './audit-write-thread';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { threadNices, writerThreads } from '../../test/helpers/writer-threads';

// The thread runs the built script, as the core starts it (`npm run build` writes it).
const builtDir = await findBuiltDir(WRITER_THREAD_DIR, WRITER_THREAD_FILE);
if (!builtDir) throw new Error(`out/${WRITER_THREAD_DIR} is missing: run "npm run build" first`);
const script = join(builtDir, WRITER_THREAD_FILE);

let dir = '';
tempDirEach('warden-audit-thread-', (d) => (dir = d));
/** Every store a test opened, closed after it (once each). */
const stores = new Set<AuditStore>();
afterEach(() => Promise.all([...stores].map((s) => s.close())).then(() => stores.clear()));

function open(options: Partial<AuditStoreOptions> = {}): AuditStore {
  const opened = openAuditStore({ path: join(dir, 'audit.db'), writerThread: script, ...options });
  if (!opened.ok) throw new Error(opened.error.message);
  stores.add(opened.value);
  return opened.value;
}

describe('audit writer thread', () => {
  it('writes batches in order off the appending thread; listeners get the rows', async () => {
    const s = open({ batchSize: 50 });
    const batches: AuditRow[][] = [];
    s.subscribe((rows) => batches.push(rows));
    for (let i = 1; i <= 400; i += 1) s.append(netEvent(i % 2 ? 'github' : 'files', i));
    // Nothing is written while the appending code runs: it only queued.
    expect(s.pendingCount()).toBe(400);
    await vi.waitFor(() => expect(batches.flat()).toHaveLength(400), { timeout: 10_000 });
    expect(batches.flat().map((r) => r.id)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(s.verify()).toMatchObject({ ok: true, rows: 400 });
  });

  it('a query sees what was queued a moment before (the store waits for the thread)', async () => {
    const s = open();
    s.append(callEvent('files', 1, { path: '/tmp/a' }));
    s.append(callEvent('files', 2, { path: '/tmp/b' }));
    const page = await s.query({ limit: 10 });
    expect(page.rows.map((r) => r.id)).toEqual([2, 1]);
    expect(s.pendingCount()).toBe(0);
  });

  // Thread nice values are read from /proc, which only Linux has.
  it.skipIf(process.platform !== 'linux')(
    'runs nicer than the relaying thread, which keeps its own priority',
    async () => {
      const own = getPriority(0);
      const s = open();
      s.append(netEvent('github', 1));
      expect((await s.query({ limit: 1 })).rows).toHaveLength(1);
      const nices = await threadNices();
      expect(nices.find((t) => t.tid === String(process.pid))?.nice).toBe(own);
      expect(nices.map((t) => t.nice)).toContain(Math.min(19, own + WRITER_NICE_INCREMENT));
    },
  );

  // The thread is told apart by its nice value, read from /proc, which only Linux has.
  it.skipIf(process.platform !== 'linux')(
    'with a delay, the store writes itself until the thread starts, then hands batches over',
    async () => {
      const before = await writerThreads();
      const s = open({ writerThreadDelayMs: 300, batchSize: 10 });
      for (let i = 1; i <= 25; i += 1) s.append(netEvent('github', i));
      await s.flush();
      expect(s.pendingCount()).toBe(0);
      expect(await writerThreads()).toBe(before);
      await vi.waitFor(async () => expect(await writerThreads()).toBe(before + 1), {
        timeout: 5000,
      });
      for (let i = 26; i <= 60; i += 1) s.append(callEvent('files', i, { path: `/tmp/${i}` }));
      const page = await s.query({ limit: 100 });
      expect(page.rows.map((r) => r.id)).toEqual(Array.from({ length: 60 }, (_, i) => 60 - i));
      expect(s.verify()).toMatchObject({ ok: true, rows: 60 });
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'closed before its writer thread was due, a store never starts it and loses nothing',
    async () => {
      const before = await writerThreads();
      const s = open({ writerThreadDelayMs: 300 });
      for (let i = 1; i <= 5; i += 1) s.append(netEvent('github', i));
      await s.close();
      await new Promise((r) => setTimeout(r, 500));
      expect(await writerThreads()).toBe(before);
      const reopened = open();
      expect(reopened.verify()).toMatchObject({ ok: true, rows: 5 });
    },
  );

  it('loses nothing on a clean close, and the chain goes on after reopening', async () => {
    const s = open();
    for (let i = 1; i <= 1000; i += 1) s.append(netEvent('github', i));
    await s.close();
    const again = open();
    again.append(netEvent('github', 1001));
    expect(again.verify()).toMatchObject({ ok: true, rows: 1001 });
  });

  it('writes what is appended while closing is under way', async () => {
    const s = open();
    s.append(netEvent('github', 1));
    const closing = s.close();
    s.append(netEvent('github', 2));
    await closing;
    const again = open();
    expect(again.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  it('a write the thread could not make stays queued: flush rejects, a later flush writes it', async () => {
    const s = open({ busyTimeoutMs: 50, onError: () => undefined });
    const other = new Database(join(dir, 'audit.db'));
    other.exec('BEGIN IMMEDIATE');
    s.append(netEvent('github', 1));
    await expect(s.flush()).rejects.toThrow(/locked|busy/i);
    expect(s.pendingCount()).toBe(1);
    other.exec('COMMIT');
    other.close();
    await s.flush();
    expect(s.pendingCount()).toBe(0);
    expect(s.verify()).toMatchObject({ ok: true, rows: 1 });
  });

  it('a thread that cannot start is reported and the store writes the events itself', async () => {
    const errors: unknown[] = [];
    const s = open({
      writerThread: join(dir, 'no-such-thread.cjs'),
      onError: (e) => errors.push(e),
    });
    for (let i = 1; i <= 20; i += 1) s.append(netEvent('github', i));
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
    expect(String(errors[0])).toMatch(/writer thread stopped/);
    await s.flush();
    expect(s.verify()).toMatchObject({ ok: true, rows: 20 });
  });

  it('redacts on the thread with the secrets of the moment of append: nothing secret is stored or shown', async () => {
    const secret = 'ghp_ThreadSideSecret4567';
    let secrets: AuditSecret[] = [{ name: 'GITHUB_TOKEN', value: secret }];
    const s = open({ secretsFor: () => secrets, flushDelayMs: 60_000 });
    const shown: AuditRow[] = [];
    s.subscribe((rows) => shown.push(...rows));
    const args = { q: `token ${secret}`, nested: [{ [secret]: secret }] };
    s.append(callEvent('github', 1, args));
    // The secret is gone from the set (the list emptied in place, then replaced) and the caller
    // changes its object before the batch is written: the snapshot taken at append still holds
    // the value and is still redacted.
    secrets.length = 0;
    secrets = [];
    args.q = 'changed';
    s.append(netEvent('github', 2));
    await s.close();
    stores.delete(s);
    for (const file of ['audit.db', 'audit.db-wal']) {
      const bytes = await readFile(join(dir, file)).catch(() => Buffer.alloc(0));
      expect(bytes.includes(secret)).toBe(false);
    }
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect(shown[0]?.event).toMatchObject({
      args: {
        q: 'token «secret:GITHUB_TOKEN»',
        nested: [{ '«secret:GITHUB_TOKEN»': '«secret:GITHUB_TOKEN»' }],
      },
    });
    const again = open();
    expect(again.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  it('builds rows only while a listener wants them', async () => {
    const s = open();
    let watching = false;
    const seen: number[] = [];
    s.subscribe(
      (rows) => seen.push(...rows.map((r) => r.id)),
      () => watching,
    );
    s.append(netEvent('github', 1));
    await s.flush();
    expect(seen).toEqual([]);
    watching = true;
    s.append(netEvent('github', 2));
    await s.flush();
    expect(seen).toEqual([2]);
  });

  // A thread that goes away gives no answer for the batch it took: written again only if its
  // transaction did not commit, so that every event is in the log exactly once.
  function openDying(when: 'before-commit' | 'after-commit', errors: unknown[]): AuditStore {
    process.env.WARDEN_TEST_WRITER_DIES = when;
    try {
      return open({
        writerThread: join(import.meta.dirname, '../../test/fixtures/dying-audit-writer.cjs'),
        batchSize: 50,
        onError: (e) => errors.push(e),
      });
    } finally {
      delete process.env.WARDEN_TEST_WRITER_DIES;
    }
  }
  const TS = '2026-01-01T00:00:00.000Z';

  for (const when of ['before-commit', 'after-commit'] as const) {
    it(`a thread that goes away ${when.replace('-', ' the batch ')}s leaves each event once`, async () => {
      const errors: unknown[] = [];
      const s = openDying(when, errors);
      for (let i = 1; i <= 120; i += 1) s.append(netEvent('github', i, TS));
      await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
      expect(String(errors[0])).toMatch(/writer thread stopped \(exited with code 3\)/);
      await s.flush();
      const rows = (await s.query({ limit: 500 })).rows;
      expect(rows).toHaveLength(120);
      expect(new Set(rows.map((r) => (r.event as { bytesUp: number }).bytesUp)).size).toBe(120);
      expect(s.verify()).toMatchObject({ ok: true, rows: 120 });
    });

    it(`a listener sees each event once when the thread goes away ${when.replace('-', ' the batch ')}s`, async () => {
      const errors: unknown[] = [];
      const s = openDying(when, errors);
      const seen: number[] = [];
      s.subscribe((rows) =>
        seen.push(...rows.map((r) => (r.event as { bytesUp: number }).bytesUp)),
      );
      for (let i = 1; i <= 120; i += 1) s.append(netEvent('github', i, TS));
      await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
      await s.flush();
      expect(seen.sort((a, b) => a - b)).toEqual(
        Array.from({ length: 120 }, (_, i) => (i + 1) * 10),
      );
    });
  }

  it('rows written before that look like the lost batch are not taken for it', async () => {
    const first = open({ writerThread: undefined });
    for (let i = 1; i <= 50; i += 1) first.append(netEvent('github', i, TS));
    await first.close();
    stores.delete(first);
    const errors: unknown[] = [];
    const s = openDying('before-commit', errors);
    // The same 50 events again, to the byte: the batch the thread takes, then loses.
    for (let i = 1; i <= 50; i += 1) s.append(netEvent('github', i, TS));
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
    await s.flush();
    expect((await s.query({ limit: 500 })).rows).toHaveLength(100);
    expect(s.verify()).toMatchObject({ ok: true, rows: 100 });
  });

  it('adds the outcome index to a log created before it', async () => {
    const path = join(dir, 'audit.db');
    const raw = new Database(path);
    const first = open({ writerThread: undefined });
    first.append(callEvent('fs', 1, {}));
    await first.close();
    stores.delete(first);
    raw.exec('DROP INDEX audit_rare_outcome_id');
    const indexes = () =>
      raw
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'audit_rare_outcome_id'",
        )
        .pluck()
        .all();
    expect(indexes()).toEqual([]);
    const s = open();
    s.append(callEvent('fs', 2, {}));
    await s.flush();
    expect(indexes()).toEqual(['audit_rare_outcome_id']);
    raw.close();
  });
});
