/**
 * Tail truncation: rows cut from the end of the log leave a chain that verifies on its own; the
 * head recorded beside the config must catch it, in the store, after a reopen and in the CLI.
 */
import Database from 'better-sqlite3';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runAuditCommand } from './audit-cli';
import { type AuditStore, type AuditStoreOptions, openAuditStore } from './audit-store';
import { netEvent } from './audit-test-events';
import { tempDirEach } from '../../test/helpers/temp-dir';

let home = '';
let db: string;
let headFile: string;

tempDirEach('warden-audit-head-', (d) => {
  home = d;
  db = join(home, 'audit.db');
  headFile = join(home, 'audit-head.json');
});

function open(options: Partial<AuditStoreOptions> = {}): AuditStore {
  const opened = openAuditStore({ path: db, headFile, ...options });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

async function writeRows(n: number, options: Partial<AuditStoreOptions> = {}): Promise<void> {
  const s = open(options);
  for (let i = 1; i <= n; i++) s.append(netEvent('github', i));
  await s.close();
}

function sql(text: string): void {
  const d = new Database(db);
  d.prepare(text).run();
  d.close();
}

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (out += s) };
  const code = await runAuditCommand(args, io, { wardenHome: home });
  return { code, out };
}

it('records the newest row outside the log, and verify says the end matches it', async () => {
  await writeRows(20);
  const head = JSON.parse(await readFile(headFile, 'utf8')) as { id: number; hash: string };
  expect(head.id).toBe(20);
  const s = open({ readonly: true });
  expect(s.verify()).toMatchObject({ ok: true, rows: 20, headHash: head.hash, headChecked: true });
  await s.close();
  const r = await cli('verify');
  expect(r.code).toBe(0);
  expect(r.out).toContain('the end matches the head recorded in');
});

it('finds rows cut from the end, which the chain alone cannot show, and names what is missing', async () => {
  await writeRows(20);
  sql('DELETE FROM audit WHERE id > 14');
  const s = open({ readonly: true, headFile: undefined });
  expect(s.verify()).toMatchObject({ ok: true, rows: 14 });
  await s.close();
  const r = await cli('verify');
  expect(r.code).toBe(1);
  expect(r.out).toMatch(
    /^BROKEN at row 15: rows 15-20 are missing from the end \(cut, or lost in a system crash before they reached the disk\): the recorded head is row 20 \(hash [0-9a-f]{16}…, [^)]+\), the log ends at row 14 \(6 rows missing\)\n$/,
  );
});

it('finds a log cut and written again past the recorded head', async () => {
  await writeRows(20);
  const recorded = await readFile(headFile, 'utf8');
  sql('DELETE FROM audit WHERE id > 10');
  await writeRows(15, { headFile: join(home, 'elsewhere.json') });
  await writeFile(headFile, recorded);
  const r = await cli('verify');
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/row 20 is not the recorded head row 20 .*cut there and written again/);
});

it('a store that opens a truncated log writes that down first, so new rows do not hide it', async () => {
  await writeRows(20);
  sql('DELETE FROM audit WHERE id > 14');
  await writeRows(5);
  const s = open({ readonly: true });
  const page = await s.query({ kind: 'audit.truncated' });
  expect(page.rows).toHaveLength(1);
  expect(page.rows[0]).toMatchObject({
    id: 15,
    outcome: 'error',
    event: { recordedId: 20, lastId: 14, missing: 6 },
  });
  const v = s.verify();
  expect(v).toMatchObject({ ok: false, problem: 'truncated', firstBrokenId: 15 });
  await s.close();
});

it('a deleted log with a recorded head is reported, not taken for a new one', async () => {
  await writeRows(3);
  await rm(db);
  const r = await cli('verify');
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/BROKEN: there is no audit log .* records its head at row 3/);
});

it('a busy log writes its head at most once per interval, and the newest head last', async () => {
  const { HeadWriter, MIN_INTERVAL_MS } = await import('./audit-head');
  const written: string[] = [];
  const writer = new HeadWriter(
    headFile,
    (e) => {
      throw e;
    },
    async (_path, text) => {
      written.push(text);
      await new Promise((resolve) => setTimeout(resolve, 2));
    },
  );
  const head = (id: number) => ({ id, hash: 'a'.repeat(64), ts: `t${id}` });
  // A batch every 10 ms for 2.5 intervals, as a log under a flood of calls commits them.
  const started = Date.now();
  let id = 0;
  while (Date.now() - started < MIN_INTERVAL_MS * 2.5) {
    writer.record(head(++id));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await writer.flush();
  expect(written.length).toBeGreaterThanOrEqual(2);
  expect(written.length).toBeLessThanOrEqual(4);
  expect(JSON.parse(written.at(-1)!)).toMatchObject({ id });

  // A flush does not wait for the interval: the newest head goes out at once.
  writer.record(head(++id));
  const interval = new Promise((resolve) => setTimeout(() => resolve('interval'), MIN_INTERVAL_MS));
  expect(await Promise.race([writer.flush().then(() => 'flushed'), interval])).toBe('flushed');
  expect(JSON.parse(written.at(-1)!)).toMatchObject({ id });
});

it('verifies rows whose text held a lone surrogate a server sent', async () => {
  // SQLite stores text as UTF-8, where a lone surrogate becomes U+FFFD: hashed as it was, the
  // row would read back changed and break the chain for every row after it.
  const s = open();
  s.append({
    kind: 'mcp.response',
    outcome: 'error',
    server: 'github',
    instance: 'github#1',
    requestId: 1,
    method: 'tools/call',
    tool: 'read_file',
    error: { code: -32000, message: 'oops \ud800 and \udc00' },
    durationMs: 1,
    sizeBytes: 60,
  });
  s.append(netEvent('github', 2));
  await s.close();
  const r = await cli('verify');
  expect(r.out).not.toContain('changed');
  expect(r.code).toBe(0);
  const d = new Database(db, { readonly: true });
  const text = (d.prepare('SELECT text FROM audit WHERE id = 1').get() as { text: string }).text;
  d.close();
  expect(text).toContain('oops \ufffd and \ufffd');
});
