import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRowSchema } from '../../app/audit/audit-row';
import { type AuditStore, openAuditStore } from './audit-store';
import { callEvent, netEvent } from './audit-test-events';

let dir: string;
const stores: AuditStore[] = [];

/** 300 events: ids 1..300, ts one minute apart; odd ids github network, even ids files calls. */
async function seeded(fts: boolean): Promise<AuditStore> {
  const opened = openAuditStore({ path: join(dir, `audit-${stores.length}.db`), fts });
  if (!opened.ok) throw new Error(opened.error.message);
  const s = opened.value;
  stores.push(s);
  for (let i = 1; i <= 300; i += 1) {
    const ts = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
    s.append(i % 2 ? netEvent('github', i, ts) : callEvent('files', i, { path: `/p/${i}` }, ts));
  }
  await s.flush();
  return s;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warden-audit-q-'));
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each([true, false])('audit query (fts %s)', (fts) => {
  let s: AuditStore;
  beforeAll(async () => {
    s = await seeded(fts);
  });

  it('returns the newest rows first, default page 50', async () => {
    const page = await s.query({});
    expect(page.rows).toHaveLength(50);
    expect(page.rows[0]?.id).toBe(300);
    expect(page.rows[49]?.id).toBe(251);
    expect(page.nextCursor).toBe(251);
    for (const row of page.rows) expect(auditRowSchema.safeParse(row).success).toBe(true);
  });

  it('pages with the cursor through every match exactly once', async () => {
    const seen: number[] = [];
    let cursor: number | undefined;
    do {
      const page = await s.query({ server: 'github', kind: 'network.decision', limit: 40, cursor });
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(150);
    expect(new Set(seen).size).toBe(150);
    expect(seen.every((id, i) => id % 2 === 1 && (i === 0 || id < seen[i - 1]!))).toBe(true);
  });

  it('filters by instance, kind list, outcome and time range', async () => {
    expect((await s.query({ instance: 'files#1', limit: 1000 })).rows).toHaveLength(150);
    expect((await s.query({ kind: ['mcp.request', 'tool.drift'], limit: 1000 })).rows).toHaveLength(
      150,
    );
    const refused = (await s.query({ outcome: 'refused', limit: 1000 })).rows;
    expect(refused.every((r) => r.id % 3 === 0 && r.id % 2 === 1)).toBe(true);
    expect(refused).toHaveLength(50);
    const range = await s.query({
      since: new Date(Date.UTC(2026, 10, 1) + 10 * 60_000).toISOString(),
      until: '2026-11-01T00:20:00Z',
      limit: 1000,
    });
    expect(range.rows.map((r) => r.id)).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
    expect(range.nextCursor).toBeUndefined();
  });

  it('refuses an outcome that is not one of the four (the renderer is untrusted)', async () => {
    // The outcome only chooses whether a fixed term is added to the SQL; anything else is refused
    // before a statement is built.
    const hostile = "refused') OR 1=1 --" as unknown as 'refused';
    await expect(s.query({ outcome: hostile, limit: 10 })).rejects.toThrow();
    expect((await s.query({ outcome: 'error', limit: 10 })).rows).toEqual([]);
  });

  it('searches the summary text', async () => {
    const rows = (await s.query({ text: 'host7.example', limit: 1000 })).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows.every(
        (r) => r.event.kind === 'network.decision' && r.event.host === 'host7.example.com',
      ),
    ).toBe(true);
    expect((await s.query({ text: 'search_issues files', limit: 1000 })).rows).toHaveLength(150);
    expect((await s.query({ text: 'nothing-like-this', limit: 5 })).rows).toHaveLength(0);
    await expect(s.query({ text: '" * ( ) : ^ -' })).resolves.toHaveProperty('rows');
    expect((await s.query({ text: 'search_iss*', limit: 1000 })).rows).toHaveLength(150);
  });

  it('pages through a text search with the cursor', async () => {
    const seen: number[] = [];
    let cursor: number | undefined;
    do {
      const page = await s.query({ text: 'search_issues', limit: 40, cursor });
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: 150 }, (_, i) => 300 - 2 * i));
  });

  it('rejects an invalid query', async () => {
    await expect(s.query({ limit: 0 })).rejects.toThrow();
  });
});

describe('audit export', () => {
  it('writes matching rows as JSON Lines, oldest first, with hash fields', async () => {
    const s = await seeded(true);
    const file = join(dir, 'out.jsonl');
    expect(await s.exportJsonl({ server: 'github' }, file)).toEqual({ rows: 150 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(150);
    const rows = lines.map((l) => auditRowSchema.parse(JSON.parse(l)));
    expect(rows[0]).toMatchObject({ id: 1, server: 'github' });
    expect(rows[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.prevHash).toBe('0'.repeat(64));
    expect(rows.at(-1)?.id).toBe(299);
    expect(await s.exportJsonl({ kind: 'limit.hit' }, file)).toEqual({ rows: 0 });
    expect(await readFile(file, 'utf8')).toBe('');
  });

  it('exports more rows than one chunk', async () => {
    const opened = openAuditStore({ path: join(dir, 'big.db') });
    if (!opened.ok) throw new Error(opened.error.message);
    const s = opened.value;
    stores.push(s);
    for (let i = 1; i <= 2500; i += 1) s.append(netEvent('github', i));
    const file = join(dir, 'big.jsonl');
    expect(await s.exportJsonl({}, file)).toEqual({ rows: 2500 });
    const ids = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
  });
});
