import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditEventOf } from '../../app/audit/audit-event';
import { auditEventText } from '../../app/audit/audit-text';
import { runAuditCommand } from './audit-cli';
import { auditFloodGuard } from './audit-flood-guard';
import { openAuditStore } from './audit-store';
import { type Coalesced, Coalescer } from './coalescer';

interface Item {
  key: string;
  holder: string;
  n: number;
}

function harness(budget = 5, windowMs = 1000, budgetMs = 10_000) {
  let t = 0;
  const out: Coalesced<Item>[] = [];
  const c = new Coalescer<Item>({
    keyOf: (i) => (i.key === '-' ? undefined : i.key),
    holderOf: (i) => i.holder,
    emit: (o) => out.push(o),
    windowMs,
    budget,
    budgetMs,
    summaryKeys: 2,
    now: () => t,
  });
  const at = (ms: number) => {
    t = ms;
  };
  return { c, out, at };
}

/** The items each output stands for. */
function counted(out: Coalesced<unknown>[]): number {
  return out.reduce((n, o) => n + (o.kind === 'single' ? 1 : o.count), 0);
}

describe('coalescer', () => {
  it('writes the first of a key at once and its repeats as one output when the window ends', () => {
    const { c, out, at } = harness();
    for (let n = 0; n < 100; n++) {
      at(n * 5);
      c.offer({ key: 'evil:443', holder: 'i1', n });
    }
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: 'single', item: { n: 0 } });
    at(1000);
    c.tick();
    expect(out).toHaveLength(2);
    expect(out[1]).toMatchObject({
      kind: 'repeat',
      count: 99,
      first: { n: 1 },
      last: { n: 99 },
    });
    expect(counted(out)).toBe(100);
  });

  it('keeps a busy key in one output per window, and forgets a quiet one', () => {
    const { c, out, at } = harness(100);
    for (let n = 0; n < 5000; n++) {
      at(n);
      c.offer({ key: 'k', holder: 'i1', n });
      c.tick();
    }
    at(5000);
    c.tick();
    // One first row and one repeat row per second of flood.
    expect(out.filter((o) => o.kind === 'single')).toHaveLength(1);
    expect(out.filter((o) => o.kind === 'repeat')).toHaveLength(5);
    expect(counted(out)).toBe(5000);
    at(7000);
    c.tick();
    c.offer({ key: 'k', holder: 'i1', n: 1 });
    expect(out.at(-1)).toMatchObject({ kind: 'single' });
  });

  it('summarises what is past the budget with counts per key, and names only a few keys', () => {
    const { c, out, at } = harness(3);
    for (let n = 0; n < 50; n++) c.offer({ key: `h${n}`, holder: 'i1', n });
    expect(out.map((o) => o.kind)).toEqual(['single', 'single', 'single']);
    at(10_000);
    c.tick();
    const summary = out.at(-1);
    expect(summary).toMatchObject({ kind: 'summary', holder: 'i1', count: 47, otherCount: 45 });
    expect(summary?.kind === 'summary' && summary.groups.map((g) => [g.key, g.count])).toEqual([
      ['h3', 1],
      ['h4', 1],
    ]);
    expect(counted(out)).toBe(50);
  });

  it('charges each holder its own budget: one flooding instance does not silence another', () => {
    const { c, out } = harness(3);
    for (let n = 0; n < 50; n++) c.offer({ key: `a${n}`, holder: 'bad', n });
    c.offer({ key: 'b', holder: 'good', n: 0 });
    expect(out.at(-1)).toMatchObject({ kind: 'single', item: { holder: 'good' } });
  });

  it('passes items without a key straight through, outside any budget', () => {
    const { c, out } = harness(1);
    for (let n = 0; n < 10; n++) c.offer({ key: '-', holder: 'i1', n });
    expect(out.filter((o) => o.kind === 'single')).toHaveLength(10);
  });

  it('drain puts out every repeat and summary still held, so nothing is lost on close', () => {
    const { c, out } = harness(2);
    for (let n = 0; n < 30; n++) c.offer({ key: `k${n % 4}`, holder: 'i1', n });
    expect(c.heldCount()).toBe(28);
    c.drain();
    expect(c.heldCount()).toBe(0);
    expect(counted(out)).toBe(30);
  });

  it('bounds the keys it holds per holder, however many destinations are tried', () => {
    const { c, at } = harness(5, 100_000, 1000);
    for (let n = 0; n < 10_000; n++) {
      at(n);
      c.offer({ key: `k${n}`, holder: 'i1', n });
      c.tick();
    }
    expect((c as unknown as { keys: Map<string, unknown> }).keys.size).toBeLessThanOrEqual(20);
  });
});

function refused(n: number, host = 'evil.test'): AuditEventOf<'network.decision'> {
  return {
    kind: 'network.decision',
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
    outcome: 'refused',
    server: 'hostile',
    instance: 'hostile#1',
    host,
    port: 443,
    decision: 'deny',
    by: 'default',
    reason: 'not-allowed',
    bytesUp: 0,
    bytesDown: 0,
    durationMs: 1,
  };
}

describe('audit flood guard', () => {
  it('writes repeated refusals as one row with the count and first and last time', () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      { windowMs: 1000 },
      (e) => rows.push(e),
      () => 0,
    );
    for (let n = 0; n < 500; n++) g.offer(refused(n));
    g.drain();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      kind: 'network.decision',
      host: 'evil.test',
      repeat: { count: 499, firstTs: refused(1).ts, lastTs: refused(499).ts },
    });
    expect(auditEventText(rows[1]!)).toContain('×499 more from');
  });

  it('keeps different decisions, hosts and instances apart, and tool calls untouched', () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      {},
      (e) => rows.push(e),
      () => 0,
    );
    g.offer(refused(1));
    g.offer({ ...refused(2), decision: 'allow', outcome: 'ok' });
    g.offer(refused(3, 'other.test'));
    g.offer({ ...refused(4), instance: 'hostile#2' });
    for (let n = 0; n < 3; n++)
      g.offer({
        kind: 'mcp.request',
        ts: refused(n).ts,
        outcome: 'info',
        server: 'hostile',
        instance: 'hostile#1',
        requestId: n,
        method: 'tools/call',
        sizeBytes: 10,
      });
    expect(rows).toHaveLength(7);
  });

  it("coalesces a server's requests to the client by method", () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      { windowMs: 1000 },
      (e) => rows.push(e),
      () => 0,
    );
    for (let n = 0; n < 300; n++) {
      g.offer({
        kind: 'mcp.server-request',
        ts: refused(n).ts,
        outcome: 'info',
        server: 'hostile',
        instance: 'hostile#1',
        requestId: n,
        method: n % 2 ? 'sampling/createMessage' : 'elicitation/create',
        sizeBytes: 100,
      });
    }
    g.drain();
    expect(rows.map((r) => [r.kind, r.repeat?.count])).toEqual([
      ['mcp.server-request', undefined],
      ['mcp.server-request', undefined],
      ['mcp.server-request', 149],
      ['mcp.server-request', 149],
    ]);
  });

  it("coalesces the client's answers to those requests by method and outcome", () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      { windowMs: 1000 },
      (e) => rows.push(e),
      () => 0,
    );
    for (let n = 0; n < 200; n++) {
      g.offer({
        kind: 'mcp.client-answer',
        ts: refused(n).ts,
        outcome: n % 2 ? 'error' : 'ok',
        server: 'hostile',
        instance: 'hostile#1',
        requestId: n,
        method: 'sampling/createMessage',
        durationMs: 1,
        sizeBytes: 100,
      });
    }
    g.drain();
    expect(rows.map((r) => [r.outcome, r.repeat?.count])).toEqual([
      ['ok', undefined],
      ['error', undefined],
      ['ok', 99],
      ['error', 99],
    ]);
  });

  it('keeps an accepted form apart from the declined ones around it', () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      { windowMs: 1000 },
      (e) => rows.push(e),
      () => 0,
    );
    for (const [n, resultSummary] of ['decline', 'decline', 'accept: field "token"'].entries()) {
      g.offer({
        kind: 'mcp.client-answer',
        ts: refused(n).ts,
        outcome: 'ok',
        server: 'hostile',
        instance: 'hostile#1',
        requestId: n,
        method: 'elicitation/create',
        resultSummary,
        durationMs: 1,
        sizeBytes: 100,
      });
    }
    g.drain();
    expect(rows.map((r) => r.kind === 'mcp.client-answer' && r.resultSummary)).toEqual([
      'decline',
      'accept: field "token"',
      'decline',
    ]);
  });

  it('coalesces sandbox refusals by operation and target too', () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      {},
      (e) => rows.push(e),
      () => 0,
    );
    for (let n = 0; n < 50; n++) {
      g.offer({
        kind: 'sandbox.violation',
        ts: refused(n).ts,
        outcome: 'refused',
        server: 'hostile',
        instance: 'hostile#1',
        backend: 'seatbelt',
        operation: 'file-read-data',
        target: n % 2 ? '/Users/me/.ssh/id_ed25519' : '/Users/me/.aws/credentials',
        process: 'node',
        pid: 7,
      });
    }
    g.drain();
    expect(rows.map((r) => r.repeat?.count ?? 1)).toEqual([1, 1, 24, 24]);
  });

  it('summarises refusals past the budget in one audit.summary row naming the destinations', () => {
    const rows: AuditEvent[] = [];
    const g = auditFloodGuard(
      { budgetRows: 2, budgetSeconds: 10, summaryKeys: 2 },
      (e) => rows.push(e),
      () => 0,
    );
    for (let n = 0; n < 40; n++) g.offer(refused(n, `h${n}.flood.test`));
    g.drain();
    const summary = rows.at(-1)!;
    expect(summary).toMatchObject({
      kind: 'audit.summary',
      server: 'hostile',
      instance: 'hostile#1',
      count: 38,
      otherCount: 36,
      groups: [
        { kind: 'network.decision', subject: 'deny h2.flood.test:443', count: 1 },
        { kind: 'network.decision', subject: 'deny h3.flood.test:443', count: 1 },
      ],
      budget: { rows: 2, seconds: 10 },
    });
    expect(auditEventText(summary)).toMatch(/38 events over the rate budget of 2 rows per 10 s/);
  });
});

describe('a guarded store', () => {
  it('list, search and export show the count of a coalesced row, and the chain verifies', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-guarded-'));
    try {
      const opened = openAuditStore({ path: join(home, 'audit.db'), floodGuard: {} });
      if (!opened.ok) throw new Error(opened.error.message);
      for (let n = 0; n < 300; n++) opened.value.append(refused(n));
      await opened.value.close();
      let out = '';
      const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (out += s) };
      const run = (...args: string[]) => runAuditCommand(args, io, { wardenHome: home });
      expect(await run('list')).toBe(0);
      expect(out.trim().split('\n')).toHaveLength(2);
      expect(out).toMatch(/^2\t.*deny evil\.test:443 by default.* ×299 more from \S+ to \S+\n/);
      out = '';
      await run('list', '--text', 'evil.test', '--json');
      const page = JSON.parse(out) as { rows: { event: { repeat?: { count: number } } }[] };
      expect(page.rows.map((r) => r.event.repeat?.count ?? 1)).toEqual([299, 1]);
      out = '';
      await run('export', join(home, 'out.jsonl'));
      const lines = (await readFile(join(home, 'out.jsonl'), 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(2);
      out = '';
      expect(await run('verify')).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
