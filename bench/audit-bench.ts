/**
 * Audit store benchmark: ingest rate, building a 1,000,000-event log, first-page latency of
 * filtered queries over it, and verify time. Run: `node bench/run.mjs audit-bench [--no-fts]
 * [--keep] [--writer]`. Prints measured figures only; the database lives in a temp dir that is
 * removed afterwards unless `--keep` is given (its path is printed). `--writer` measures only the
 * per-event work of a relayed call's two events, in CPU time of this one thread: the snapshot
 * `append` takes, the preparation the writer thread does, and the writer's SQLite transaction
 * alone at batch sizes the gateway produces.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEventInput } from '../app/audit/audit-event';
import type { AuditQuery } from '../app/audit/audit-row';
import { type AuditStore, openAuditStore } from '../main/audit/audit-store';
import { callEvent, netEvent } from '../main/audit/audit-test-events';
import { openAuditDb } from '../main/audit/audit-db';
import { prepare, snapshot } from '../main/audit/audit-prepare';
import { prepareWriter } from '../main/audit/audit-writer';
import type { AuditEvent } from '../app/audit/audit-event';
import { benchFlags } from './bench-flags';

const flags = benchFlags(
  'audit-bench',
  'Audit log ingest, queries over 1,000,000 events and verify.',
  {
    'no-fts': { type: 'boolean', help: 'without the full-text index' },
    keep: { type: 'boolean', help: 'keep the database and print where it is' },
    writer: { type: 'boolean', help: 'only the CPU per event of the writer thread' },
  },
);
const fts = !flags['no-fts'];
const keep = flags.keep;
const writerOnly = flags.writer;
const SERVERS = 20;

/** A realistic mix: mostly tool calls and replies, some network decisions, few of the rest. */
function mixedEvent(i: number): AuditEventInput {
  const server = `server-${i % SERVERS}`;
  const slot = Math.floor(i / SERVERS) % 100;
  if (slot < 40) return callEvent(server, i, { path: `/home/u/project/file-${i % 5000}.ts`, n: i });
  if (slot < 80) {
    return {
      kind: 'mcp.response',
      server,
      instance: `${server}#1`,
      outcome: slot === 79 ? 'error' : 'ok',
      requestId: i,
      method: 'tools/call',
      tool: slot % 2 ? 'read_file' : 'search_issues',
      resultSummary: `${slot % 7} content blocks`,
      durationMs: slot * 3,
      sizeBytes: 400 + slot * 10,
    };
  }
  if (slot < 95) return netEvent(server, i);
  if (slot < 98) return { kind: 'instance.lifecycle', server, outcome: 'info', state: 'running' };
  if (slot < 99) return { kind: 'limit.hit', server, outcome: 'refused', limit: 'memoryMb' };
  return {
    kind: 'policy.changed',
    server,
    outcome: 'info',
    revisionBefore: i,
    revisionAfter: i + 1,
    changed: ['policy.network.allow'],
  };
}

function open(path: string): AuditStore {
  const opened = openAuditStore({ path, fts });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

/** Appends `n` events the way the core does: in bursts, yielding to the event loop between. */
async function ingest(store: AuditStore, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    store.append(mixedEvent(i));
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  await store.flush();
  return performance.now() - t0;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function firstPage(
  store: AuditStore,
  q: AuditQuery,
  runs = 9,
): Promise<{ ms: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    rows = (await store.query({ ...q, limit: 50 })).rows.length;
    times.push(performance.now() - t0);
  }
  return { ms: median(times), rows };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** CPU time of this process so far, in µs (the work below runs on this one thread). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** µs of CPU per item for `n` runs of `fn` (after a warm-up of a tenth of them). */
function perItem(n: number, items: number, fn: () => void): number {
  for (let i = 0; i < n / 10; i++) fn();
  const t0 = cpuMicros();
  for (let i = 0; i < n; i++) fn();
  return (cpuMicros() - t0) / (n * items);
}

/** The two events of one relayed `tools/call`, as the relay records them. */
function callPair(i: number): AuditEvent[] {
  const ts = new Date().toISOString();
  const common = { server: 'everything', instance: 'everything#1', requestId: i, ts };
  return [
    {
      ...common,
      kind: 'mcp.request',
      outcome: 'info',
      method: 'tools/call',
      tool: 'echo',
      args: { message: 'ping' },
      sizeBytes: 90,
      client: 'stdio',
    },
    {
      ...common,
      kind: 'mcp.response',
      outcome: 'ok',
      method: 'tools/call',
      tool: 'echo',
      resultSummary: '1 content block',
      durationMs: 0.3,
      sizeBytes: 120,
    },
  ];
}

function writerBench(dir: string): void {
  const pair = callPair(1);
  const secrets = [{ name: 'API_TOKEN', value: 'tok_0123456789abcdef' }];
  const snaps = pair.map((e) => snapshot(e, []));
  console.log(`audit writer alone (FTS5 text index: ${fts ? 'on' : 'off'}), µs of CPU per event:`);
  console.log(
    `  append's snapshot             ${fmt(
      perItem(50_000, 2, () => pair.map((e) => snapshot(e, []))),
      2,
    )}`,
  );
  const prep = perItem(50_000, 2, () => snaps.map((s) => prepare(s.json, s.secrets)));
  const prepSecret = perItem(50_000, 2, () => snaps.map((s) => prepare(s.json, secrets)));
  console.log(
    `  preparation on the writer     ${fmt(prep, 2)} (${fmt(prepSecret, 2)} with a secret to redact)`,
  );
  for (const size of [64, 500]) {
    const opened = openAuditDb(join(dir, `writer-${size}.db`), { fts });
    if (!opened.ok) throw new Error(opened.error.message);
    const write = prepareWriter(opened.value, () => false);
    const batch = Array.from({ length: size }, (_, i) => prepare(snaps[i % 2]!.json, []));
    const us = perItem(Math.ceil(40_000 / size), size, () => write(batch));
    console.log(
      `  SQLite, batches of ${String(size).padEnd(4)}      ${fmt(us, 2)} (${fmt(1e6 / us, 0)} rows/s)`,
    );
    opened.value.db.close();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'warden-audit-bench-'));
  try {
    if (writerOnly) return writerBench(dir);
    console.log(`audit bench (FTS5 text index: ${fts ? 'on' : 'off'}), node ${process.version}`);
    const small = open(join(dir, 'ingest.db'));
    const ingestMs = await ingest(small, 200_000);
    await small.close();
    console.log(
      `ingest 200k events (append + flush): ${fmt(ingestMs, 0)} ms, ${fmt(200_000 / (ingestMs / 1000), 0)} events/s`,
    );

    const path = join(dir, 'audit.db');
    const big = open(path);
    const buildMs = await ingest(big, 1_000_000);
    console.log(`build 1,000,000-event log: ${fmt(buildMs / 1000, 2)} s`);
    const size =
      (await stat(path)).size + (await stat(`${path}-wal`).catch(() => ({ size: 0 }))).size;
    console.log(`database size: ${fmt(size / 1024 / 1024)} MB`);

    const cases: [string, AuditQuery][] = [
      ['server + kind (common: mcp.request)', { server: 'server-7', kind: 'mcp.request' }],
      ['server + kind (rare: policy.changed)', { server: 'server-7', kind: 'policy.changed' }],
      ['server only', { server: 'server-3' }],
      ['kind only (limit.hit)', { kind: 'limit.hit' }],
      ['instance + outcome error', { instance: 'server-5#1', outcome: 'error' }],
      ['no filter', {}],
      ['text "host7" (network rows)', { text: 'host7' }],
      ['text "search_issues" + server', { text: 'search_issues', server: 'server-2' }],
      ['text not found', { text: 'zzzznotthere' }],
      ['since: last minute', { since: new Date(Date.now() - 60_000).toISOString() }],
      [
        'since: tomorrow (no match, worst case)',
        { since: new Date(Date.now() + 86_400_000).toISOString() },
      ],
      [
        'deep page (cursor 10000), server + kind',
        { server: 'server-7', kind: 'mcp.request', cursor: 10_000 },
      ],
    ];
    console.log('first page (50 rows) over 1M events, median of 9 runs:');
    for (const [label, q] of cases) {
      const { ms, rows } = await firstPage(big, q);
      console.log(`  ${label.padEnd(44)} ${fmt(ms, 2).padStart(8)} ms  (${rows} rows)`);
    }

    const t0 = performance.now();
    const result = big.verify();
    const verifyMs = performance.now() - t0;
    console.log(
      `verify 1M rows: ${fmt(verifyMs / 1000, 2)} s (${result.ok ? `ok, ${result.rows} rows` : result.reason})`,
    );
    await big.close();
  } finally {
    if (keep) console.log(`kept: ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}

await main();
