/**
 * A hostile server in allowlist mode opens refused CONNECTs in a loop for 10 s, inside the real
 * sandbox, and every decision goes into an audit store opened as the core opens it. The log must
 * grow by at most 1 MB, and the number of attempts must still be in it (coalesced rows carry
 * their count; what is over the rate budget is summarised with counts, never dropped).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import { CORE_AUDIT_FLOOD_GUARD } from '../../main/audit/audit-flood-guard';
import { type AuditStore, openAuditStore } from '../../main/audit/audit-store';
import { networkDecisionAudit } from '../../main/egress/egress-audit';
import { connectFloodScript } from './connect-flood';
import { describeSandboxed, runWithEgress } from './egress-harness';

const MB = 1024 * 1024;
let dir: string;

/** Every row of the log, oldest first. */
async function allRows(store: AuditStore): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await store.query({ limit: 1000, ...(cursor ? { cursor } : {}) });
    rows.push(...page.rows);
    if (page.nextCursor === undefined) break;
    cursor = page.nextCursor;
  }
  return rows.reverse();
}

/** The attempts a log's rows stand for: coalesced rows and summaries count what they hold. */
function attemptsIn(rows: AuditRow[]): number {
  let n = 0;
  for (const r of rows) {
    if (r.event.kind === 'network.decision') n += r.event.repeat?.count ?? 1;
    if (r.event.kind === 'audit.summary') {
      n += r.event.groups
        .filter((g) => g.kind === 'network.decision')
        .reduce((sum, g) => sum + g.count, r.event.otherCount);
    }
  }
  return n;
}

async function floodInto(name: string, distinct: boolean) {
  const path = join(dir, `${name}.db`);
  const opened = openAuditStore({ path, ...CORE_AUDIT_FLOOD_GUARD });
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  await store.flush();
  const before = (await stat(path)).size;
  const r = await runWithEgress({
    network: { mode: 'allowlist', allow: ['api.test'] },
    command: ['node', '-e', connectFloodScript(8877, 10, distinct)],
    timeoutMs: 40_000,
    onDecision: (e) => store.append(networkDecisionAudit(e)),
  });
  await store.close();
  const after = (await stat(path)).size;
  const reopened = openAuditStore({ path, readonly: true });
  if (!reopened.ok) throw new Error(reopened.error.message);
  const rows = await allRows(reopened.value);
  const verified = reopened.value.verify();
  await reopened.value.close();
  const [attempts, answered] = r.stdout.trim().split(' ').map(Number);
  return { r, grown: after - before, rows, verified, attempts: attempts!, answered: answered! };
}

describeSandboxed('audit log under a refused-CONNECT flood', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'warden-audit-flood-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('10 s of refused CONNECTs to one host grow the log by at most 1 MB and keep the count', async () => {
    const f = await floodInto('one-host', false);
    expect(f.attempts).toBeGreaterThan(500);
    expect(f.answered).toBe(f.attempts);
    expect(f.r.events.length).toBe(f.attempts);
    expect(f.grown).toBeLessThanOrEqual(1 * MB);
    expect(attemptsIn(f.rows)).toBe(f.attempts);
    expect(f.verified.ok).toBe(true);
  }, 60_000);

  it('10 s of refused CONNECTs to a new host each time stay under 1 MB too (rate budget)', async () => {
    const f = await floodInto('many-hosts', true);
    expect(f.attempts).toBeGreaterThan(500);
    expect(f.r.events.length).toBe(f.attempts);
    expect(f.grown).toBeLessThanOrEqual(1 * MB);
    expect(attemptsIn(f.rows)).toBe(f.attempts);
    expect(f.rows.some((r) => r.event.kind === 'audit.summary')).toBe(true);
    expect(f.verified.ok).toBe(true);
  }, 60_000);
});
