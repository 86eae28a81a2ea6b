import Database from 'better-sqlite3';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import { rowHash } from './audit-hash';
import { type AuditStore, type AuditStoreOptions, openAuditStore } from './audit-store';
import { callEvent, netEvent } from './audit-test-events';
import { auditStoreEach } from '../../test/helpers/audit-store-each';

const t = auditStoreEach('warden-audit-');
const open = (options: Partial<AuditStoreOptions> = {}): AuditStore => t.open(options);

async function fill(s: AuditStore, n: number): Promise<void> {
  for (let i = 1; i <= n; i += 1) s.append(netEvent(i % 2 ? 'github' : 'files', i));
  await s.flush();
}

/** Runs raw SQL on the database file behind the store's back (the store is closed first). */
async function tamper(sql: string, ...params: unknown[]): Promise<AuditStore> {
  await t.store?.close();
  const db = new Database(join(t.dir, 'audit.db'));
  db.prepare(sql).run(...params);
  db.close();
  return open();
}

describe('audit store: hash chain', () => {
  it('chains rows from the genesis hash and verifies them', async () => {
    const s = open();
    await fill(s, 120);
    const result = s.verify();
    expect(result).toMatchObject({ ok: true, rows: 120 });
    const [oldest] = (await s.query({ limit: 1, cursor: 2 })).rows;
    expect(oldest?.id).toBe(1);
    expect(oldest?.prevHash).toBe('0'.repeat(64));
    const [second] = (await s.query({ limit: 1, cursor: 3 })).rows;
    expect(second?.prevHash).toBe(oldest?.hash);
  });

  it('continues the chain after the store is reopened', async () => {
    await fill(open(), 10);
    await t.store?.close();
    await fill(open(), 10);
    expect(t.store?.verify()).toMatchObject({ ok: true, rows: 20 });
  });

  it('names the row whose body was edited with raw SQL', async () => {
    await fill(open(), 50);
    const s = await tamper(
      `UPDATE audit SET body = replace(body, '"decision":"deny"', '"decision":"allow"') WHERE id = 27`,
    );
    expect(s.verify()).toMatchObject({ ok: false, firstBrokenId: 27, problem: 'edited' });
  });

  it('detects an edited query column even when the body is intact', async () => {
    await fill(open(), 20);
    const s = await tamper(`UPDATE audit SET server = 'other' WHERE id = 9`);
    expect(s.verify()).toMatchObject({ ok: false, firstBrokenId: 9, problem: 'edited' });
  });

  it('detects a deleted middle row', async () => {
    await fill(open(), 30);
    const s = await tamper('DELETE FROM audit WHERE id = 12');
    const result = s.verify();
    expect(result).toMatchObject({ ok: false, firstBrokenId: 12, problem: 'missing' });
    expect(result.ok || result.reason).toContain('row 11 is followed by row 13');
  });

  it('detects a deleted row when the later ids were renumbered to hide the gap', async () => {
    await fill(open(), 30);
    await t.store?.close();
    const db = new Database(join(t.dir, 'audit.db'));
    db.prepare('DELETE FROM audit WHERE id = 12').run();
    db.prepare('UPDATE audit SET id = -(id - 1) WHERE id > 12').run();
    db.prepare('UPDATE audit SET id = -id WHERE id < 0').run();
    db.close();
    expect(open().verify()).toMatchObject({ ok: false, firstBrokenId: 12, problem: 'relinked' });
  });

  it('detects a forged row inserted in place of a deleted one, even with a valid own hash', async () => {
    const s = open();
    await fill(s, 30);
    const [r11] = (await s.query({ cursor: 12, limit: 1 })).rows;
    const forged = {
      id: 12,
      ts: '2026-11-29T00:00:00.000Z',
      kind: 'limit.hit',
      server: 'github',
      instance: null,
      outcome: 'info',
      text: 'nothing to see',
      body: '{"kind":"limit.hit","limit":"pids","outcome":"info","server":"github","ts":"x"}',
    };
    const hash = rowHash(r11!.hash, forged);
    const t = await tamper('DELETE FROM audit WHERE id = 12');
    await t.close();
    const s2 = await tamper(
      'INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ...Object.values(forged),
      r11!.hash,
      hash,
    );
    expect(s2.verify()).toMatchObject({ ok: false, firstBrokenId: 13, problem: 'relinked' });
  });

  it('detects a forged row appended with a made-up hash and one inserted past the end', async () => {
    await fill(open(), 10);
    const [head] = (await t.store!.query({ limit: 1 })).rows;
    const s = await tamper(
      `INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash)
       VALUES (11, 't', 'limit.hit', 's', NULL, 'info', 'x', '{}', ?, ?)`,
      head!.hash,
      'f'.repeat(64),
    );
    expect(s.verify()).toMatchObject({ ok: false, firstBrokenId: 11, problem: 'edited' });
    const s2 = await tamper('DELETE FROM audit WHERE id = 11');
    expect(s2.verify()).toMatchObject({ ok: true, rows: 10 });
    const s3 = await tamper(
      `INSERT INTO audit (id, ts, kind, server, instance, outcome, text, body, prev_hash, hash)
       VALUES (500, 't', 'limit.hit', 's', NULL, 'info', 'x', '{}', ?, ?)`,
      head!.hash,
      'f'.repeat(64),
    );
    expect(s3.verify()).toMatchObject({ ok: false, firstBrokenId: 11, problem: 'missing' });
  });
});

describe('audit store: writing', () => {
  it('redacts secrets in nested args before hashing and storing', async () => {
    const secret = 'ghp_SuperSecretValue123';
    const s = open({
      secretsFor: (server) =>
        server === 'github' ? [{ name: 'GITHUB_TOKEN', value: secret }] : [],
    });
    const args = { q: 'bug', auth: { header: `token ${secret}` }, list: [[secret]] };
    s.append(callEvent('github', 1, args));
    await s.close();
    t.store = undefined;
    const raw = await readFile(join(t.dir, 'audit.db'));
    const wal = await readFile(join(t.dir, 'audit.db-wal')).catch(() => Buffer.alloc(0));
    expect(raw.includes(secret)).toBe(false);
    expect(wal.includes(secret)).toBe(false);
    const reopened = open();
    const [row] = (await reopened.query({})).rows;
    expect(row?.event).toMatchObject({
      args: { auth: { header: 'token «secret:GITHUB_TOKEN»' }, list: [['«secret:GITHUB_TOKEN»']] },
    });
    expect(reopened.verify()).toMatchObject({ ok: true, rows: 1 });
    // The caller's object was not modified.
    expect(args.auth.header).toContain(secret);
  });

  it('writes after the delay, in batches, and tells subscribers once per batch', async () => {
    const s = open({ batchSize: 100, flushDelayMs: 5 });
    const batches: AuditRow[][] = [];
    const off = s.subscribe((rows) => batches.push(rows));
    for (let i = 1; i <= 250; i += 1) s.append(netEvent('github', i));
    expect(s.pendingCount()).toBe(250);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.pendingCount()).toBe(0);
    expect(batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(batches[2]?.at(-1)).toMatchObject({ id: 250, kind: 'network.decision' });
    off();
    s.append(netEvent('github', 251));
    await s.flush();
    expect(batches).toHaveLength(3);
  });

  it('fills in ts and snapshots the event at append time', async () => {
    const s = open({ now: () => new Date('2026-01-01T00:00:00.000Z') });
    const args = { path: '/a' };
    s.append(callEvent('files', 1, args));
    args.path = '/changed';
    await s.flush();
    expect((await s.query({})).rows[0]?.event).toMatchObject({
      ts: '2026-01-01T00:00:00.000Z',
      args: { path: '/a' },
    });
  });

  it('writes synchronously instead of dropping when the queue is full', () => {
    const s = open({ batchSize: 10, maxQueue: 25, flushDelayMs: 10_000 });
    for (let i = 1; i <= 60; i += 1) s.append(netEvent('github', i));
    expect(s.pendingCount()).toBeLessThan(25);
    expect(s.verify()).toMatchObject({ ok: true, rows: 60 });
  });

  it('keeps events queued when a write fails, reports it, and writes them once it can', async () => {
    const errors: unknown[] = [];
    const s = open({
      busyTimeoutMs: 20,
      flushDelayMs: 1,
      retryDelayMs: 5,
      onError: (e) => errors.push(e),
    });
    await fill(s, 5);
    const other = new Database(join(t.dir, 'audit.db'));
    other.exec('BEGIN IMMEDIATE');
    for (let i = 6; i <= 10; i += 1) s.append(netEvent('github', i));
    await expect(s.flush()).rejects.toThrow(/locked|busy/i);
    await new Promise((r) => setTimeout(r, 60));
    expect(errors.length).toBeGreaterThan(0);
    expect(s.pendingCount()).toBe(5);
    other.exec('ROLLBACK');
    other.close();
    // The retry timer writes them; nobody calls flush.
    await vi.waitFor(() => expect(s.pendingCount()).toBe(0));
    expect(s.verify()).toMatchObject({ ok: true, rows: 10 });
  });

  it('keeps events past the queue cap, without throwing, while the log cannot be written', async () => {
    const errors: unknown[] = [];
    const s = open({
      batchSize: 5,
      maxQueue: 10,
      busyTimeoutMs: 1,
      retryDelayMs: 5,
      onError: (e) => errors.push(e),
    });
    const other = new Database(join(t.dir, 'audit.db'));
    other.exec('BEGIN IMMEDIATE');
    for (let i = 1; i <= 40; i += 1) s.append(netEvent('github', i));
    expect(s.pendingCount()).toBe(40);
    expect(errors.length).toBeGreaterThan(0);
    other.exec('ROLLBACK');
    other.close();
    await vi.waitFor(() => expect(s.pendingCount()).toBe(0));
    expect(s.verify()).toMatchObject({ ok: true, rows: 40 });
  });

  it('keeps one chain when two connections write to the same log', async () => {
    const a = open();
    const second = openAuditStore({ path: join(t.dir, 'audit.db') });
    if (!second.ok) throw new Error(second.error.message);
    const b = second.value;
    for (let i = 1; i <= 20; i += 1) {
      (i % 3 ? a : b).append(netEvent(i % 3 ? 'a' : 'b', i));
      if (i % 4 === 0) await Promise.all([a.flush(), b.flush()]);
    }
    await b.close();
    expect(a.verify()).toMatchObject({ ok: true, rows: 20 });
  });

  it('refuses appends after close', async () => {
    const s = open();
    await s.close();
    expect(() => s.append(netEvent('github', 1))).toThrow(/closed/);
  });
});
