import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditRow } from '../../app/audit/audit-row';
import { ok } from '../../app/result';
import { openAuditStore } from '../../main/audit/audit-store';
import { startTelemetryExport } from '../../main/telemetry/otlp-export';
import { retryAfterMs } from '../../main/telemetry/otlp-post';
import { startTelemetry } from '../../main/telemetry/telemetry';
import { type OtlpCollector, startOtlpCollector } from './otlp-collector';

const SECRET = 'sk-test-4f9a1c0d5e7b2a6f';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function collector(
  options: Parameters<typeof startOtlpCollector>[0] = {},
): Promise<OtlpCollector> {
  const c = await startOtlpCollector(options);
  cleanups.push(() => c.close());
  return c;
}

/** The value of attribute `key` of an OTLP JSON record or span. */
const attr = (item: Record<string, unknown>, key: string): unknown => {
  const kv = (item.attributes as { key: string; value: Record<string, unknown> }[]).find(
    (a) => a.key === key,
  );
  return kv ? Object.values(kv.value)[0] : undefined;
};

/** A written row as the store hands it to the export. */
const row = (id: number): AuditRow => ({
  id,
  ts: new Date().toISOString(),
  kind: 'instance.lifecycle',
  server: 'fs',
  instance: 'fs#1',
  outcome: 'info',
  event: {
    kind: 'instance.lifecycle',
    ts: new Date().toISOString(),
    outcome: 'info',
    state: 'running',
  },
  hash: 'h',
  prevHash: 'p',
});

describe('OpenTelemetry export of the audit log', () => {
  it('sends each written row as a log record and each tools/call answer as a span, redacted as the log holds it', async () => {
    const c = await collector();
    const opened = openAuditStore({
      path: ':memory:',
      secretsFor: () => [{ name: 'API_KEY', value: SECRET }],
    });
    if (!opened.ok) throw new Error(opened.error.message);
    const audit = opened.value;
    const warnings: string[] = [];
    const stored = new Map([['telemetry/header/x-team', 'blue']]);
    const stop = startTelemetry(
      { endpoint: c.endpoint, headers: { 'X-Team': { ref: 'telemetry/header/x-team' } } },
      (ref) => Promise.resolve(ok(stored.get(ref))),
      audit,
      (line) => warnings.push(line),
    );
    const at = { server: 'fs', instance: 'fs#1' };
    audit.append({
      ...at,
      kind: 'mcp.request',
      outcome: 'ok',
      requestId: 7,
      method: 'tools/call',
      tool: 'read_file',
      args: { path: '/srv/a.txt', token: `Bearer ${SECRET}` },
      sizeBytes: 90,
    });
    audit.append({
      ...at,
      kind: 'mcp.response',
      outcome: 'ok',
      requestId: 7,
      method: 'tools/call',
      tool: 'read_file',
      durationMs: 12,
      sizeBytes: 300,
      resultSummary: `1 content block mentioning ${SECRET}`,
    });
    audit.append({
      ...at,
      kind: 'mcp.response',
      outcome: 'error',
      requestId: 8,
      method: 'tools/call',
      tool: 'write_file',
      durationMs: 3,
      sizeBytes: 80,
      error: { code: -32000, message: 'disk full' },
    });
    await audit.flush();
    // The request of 7 and its answer make one row (main/audit/held-requests.ts).
    await vi.waitFor(() => {
      expect(c.logRecords()).toHaveLength(2);
      expect(c.spans()).toHaveLength(2);
    }, 10_000);
    await stop();
    await audit.close();

    const everything = c.posts.map((p) => p.raw).join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).toContain('«secret:API_KEY»');
    expect(c.posts.every((p) => p.headers['x-team'] === 'blue')).toBe(true);
    expect(c.posts.every((p) => p.headers['content-type'] === 'application/json')).toBe(true);

    const [call] = c.logRecords();
    expect(attr(call!, 'warden.audit.kind')).toBe('mcp.call');
    expect(attr(call!, 'warden.server')).toBe('fs');
    expect(attr(call!, 'warden.instance')).toBe('fs#1');
    expect(JSON.parse(Object.values(call!.body as object)[0] as string)).toMatchObject({
      kind: 'mcp.call',
      tool: 'read_file',
      args: { path: '/srv/a.txt' },
    });

    const [answered, failed] = c.spans();
    expect(answered!.name).toBe('tools/call read_file');
    expect(attr(answered!, 'gen_ai.tool.name')).toBe('read_file');
    expect(attr(answered!, 'warden.server')).toBe('fs');
    expect(attr(answered!, 'warden.instance')).toBe('fs#1');
    expect(attr(answered!, 'warden.outcome')).toBe('ok');
    const nanos = (v: unknown) => BigInt(String(v));
    expect(nanos(answered!.endTimeUnixNano) - nanos(answered!.startTimeUnixNano)).toBe(12_000_000n);
    expect(failed!.name).toBe('tools/call write_file');
    expect(failed!.status).toMatchObject({ code: 2, message: 'disk full' });
    expect(warnings).toEqual([]);
  });

  it('a collector that asks for a retry is retried, and a closed export retries no more: nothing of it keeps the process alive', async () => {
    const c = await collector({ status: 503 });
    const warnings: string[] = [];
    const timers = () => process.getActiveResourcesInfo().filter((t) => t === 'Timeout').length;
    const before = timers();
    const exporter = startTelemetryExport({
      settings: { endpoint: c.endpoint, headers: {} },
      warn: (line) => warnings.push(line),
    });
    exporter.push([row(1)]);
    await vi.waitFor(() => expect(c.posts.length).toBeGreaterThanOrEqual(2), 10_000);
    await exporter.close();
    // A command's own core ends with its export: a retry still waiting would hold the command
    // until the retries gave up (about 8 s), as it did with the exporters' own retrying.
    expect(timers()).toBeLessThanOrEqual(before);
    const posts = c.posts.length;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(c.posts).toHaveLength(posts);
    expect(warnings.at(-1)).toMatch(/export\(s\) to .* failed/);
  }, 30_000);

  it('a collector that asks to be left for a while (Retry-After) gets its batch again no sooner', async () => {
    const c = await collector({ status: 429, retryAfter: '4' });
    const exporter = startTelemetryExport({
      settings: { endpoint: c.endpoint, headers: {} },
      warn: () => undefined,
    });
    exporter.push([row(1)]);
    await vi.waitFor(() => expect(c.posts.length).toBeGreaterThanOrEqual(2), 10_000);
    // Without the header the batch is sent again after 2 s.
    expect(c.posts[1]!.at - c.posts[0]!.at).toBeGreaterThanOrEqual(3_900);
    expect(c.posts[1]!.raw).toBe(c.posts[0]!.raw);
    await exporter.close();
  }, 30_000);

  it('reads Retry-After as seconds or as an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-12-05T08:00:00Z');
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sat, 05 Dec 2026 08:00:12 GMT', now)).toBe(12_000);
    expect(retryAfterMs('Sat, 05 Dec 2026 07:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
  });

  it('closing stops an export the collector never answers: no socket of it stays open', async () => {
    const c = await collector({ hang: true });
    const sockets = () =>
      process.getActiveResourcesInfo().filter((t) => t === 'TCPSocketWrap').length;
    const before = sockets();
    const exporter = startTelemetryExport({
      settings: { endpoint: c.endpoint, headers: {} },
      warn: () => undefined,
    });
    exporter.push([row(1)]);
    await vi.waitFor(() => expect(c.posts.length).toBeGreaterThan(0));
    await exporter.close();
    // The collector's side closes once Warden's has: both were this process's.
    await vi.waitFor(() => expect(sockets()).toBeLessThanOrEqual(before), 2_000);
  }, 30_000);

  it('a collector that never answers costs the log nothing: rows past the queue are dropped and counted in a warning', async () => {
    const c = await collector({ hang: true });
    const warnings: string[] = [];
    const exporter = startTelemetryExport({
      settings: { endpoint: c.endpoint, headers: {} },
      warn: (line) => warnings.push(line),
      queueLimit: 600,
    });
    // The first batch goes out and hangs; the queue then fills and the rest is dropped.
    exporter.push([row(1)]);
    await vi.waitFor(() => expect(c.posts.length).toBeGreaterThan(0));
    const t0 = performance.now();
    for (let i = 0; i < 10; i++)
      exporter.push(Array.from({ length: 100 }, (_, j) => row(i * 100 + j + 2)));
    const pushMs = performance.now() - t0;
    expect(exporter.dropped()).toBe(400);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/100 audit row\(s\) were dropped/);
    // Nothing here waited for the collector (reported, not asserted as a time limit).
    expect(pushMs).toBeGreaterThanOrEqual(0);
    await c.close();
    await exporter.close();
    // Closing says what was lost in all: the first row, never answered, the 400 and the 600
    // still queued.
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/failed and 1001 audit row\(s\) were dropped/);
  }, 30_000);

  it('a header whose value is not in the secret store keeps the export off and says why, rather than send without it', async () => {
    const c = await collector();
    const opened = openAuditStore({ path: ':memory:' });
    if (!opened.ok) throw new Error(opened.error.message);
    const warnings: string[] = [];
    const stop = startTelemetry(
      { endpoint: c.endpoint, headers: { 'X-Key': { ref: 'telemetry/header/x-key' } } },
      () => Promise.resolve(ok(undefined)),
      opened.value,
      (line) => warnings.push(line),
    );
    opened.value.append({ kind: 'instance.lifecycle', outcome: 'info', state: 'running' });
    await opened.value.flush();
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    await stop();
    await opened.value.close();
    expect(c.posts).toEqual([]);
    expect(warnings).toEqual([
      'telemetry: export is off: the value of header X-Key is not in this secret store; set it again with warden telemetry set',
    ]);
  });
});
