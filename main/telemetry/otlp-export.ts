/**
 * OpenTelemetry export of the audit log (OTLP over HTTP, JSON): every written row becomes a log
 * record, and every `tools/call` answer a span (tool name, outcome, duration; server and instance
 * as attributes). Only rows as the log stores them are read, so nothing leaves that the log's
 * redaction did not let in. Export runs after the rows are written, never on a call's path; rows
 * wait in a bounded queue, one batch per signal is in flight, and rows that do not fit are
 * dropped and counted in a warning. Loaded only when export is configured.
 */
import { SeverityNumber } from '@opentelemetry/api-logs';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { JsonLogsSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  LoggerProvider,
  type LogRecordProcessor,
  type SdkLogRecord,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import { type ReadableSpan, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { AuditRow } from '../../app/audit/audit-row';
import { type ResolvedTelemetry, signalUrl } from '../../app/telemetry/telemetry-settings';
import { otlpPoster } from './otlp-post';

/** Rows held for export at most; more are dropped (and counted). */
const MAX_QUEUE = 4096;
/** Rows per export request. */
const BATCH = 512;
/** How long one export request may take. */
const EXPORT_TIMEOUT_MS = 10_000;
/** Pause after a failed export before the next one, unless the collector asks for longer. */
const RETRY_MS = 2_000;
/** The longest pause a collector's `Retry-After` is granted (rows queue meanwhile). */
const MAX_RETRY_AFTER_MS = 60_000;
/** Sends of one batch the collector asked to retry (or did not answer) before it is given up. */
const ATTEMPTS = 3;
/** How long closing waits for the last export. */
const CLOSE_WAIT_MS = 2_000;
/** At most one warning about dropped rows or failed exports per this interval. */
const WARN_EVERY_MS = 30_000;

export interface TelemetryExportOptions {
  settings: ResolvedTelemetry;
  /** Where warnings go (dropped rows, failed exports). */
  warn: (line: string) => void;
  queueLimit?: number;
  version?: string;
}

export interface TelemetryExport {
  /** Queues written audit rows; never waits and never throws. */
  push(rows: readonly AuditRow[]): void;
  /** Rows dropped so far because the queue was full. */
  dropped(): number;
  /** Exports what is queued (bounded by the export timeout), then stops. */
  close(): Promise<void>;
}

/** Collects what the SDK finishes, to be exported by the pump here (not by a timer of its own). */
class Collected<T> {
  items: T[] = [];
  take(): T[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

const severity: Record<AuditRow['outcome'], [SeverityNumber, string]> = {
  ok: [SeverityNumber.INFO, 'INFO'],
  info: [SeverityNumber.INFO, 'INFO'],
  refused: [SeverityNumber.WARN, 'WARN'],
  error: [SeverityNumber.ERROR, 'ERROR'],
};

/** Attributes every row carries; absent values are left out. */
function rowAttributes(row: AuditRow): Record<string, string | number> {
  return {
    'warden.audit.id': row.id,
    'warden.audit.kind': row.kind,
    'warden.audit.hash': row.hash,
    'warden.outcome': row.outcome,
    ...(row.server ? { 'warden.server': row.server } : {}),
    ...(row.instance ? { 'warden.instance': row.instance } : {}),
  };
}

/** Starts the export to `settings.endpoint`. */
export function startTelemetryExport(options: TelemetryExportOptions): TelemetryExport {
  const { settings, warn } = options;
  const limit = options.queueLimit ?? MAX_QUEUE;
  const resource = resourceFromAttributes({
    'service.name': 'mcp-warden',
    ...(options.version ? { 'service.version': options.version } : {}),
  });
  const poster = otlpPoster(
    settings.headers,
    EXPORT_TIMEOUT_MS,
    `mcp-warden${options.version ? `/${options.version}` : ''}`,
  );
  const urls = {
    logs: signalUrl(settings.endpoint, 'logs'),
    traces: signalUrl(settings.endpoint, 'traces'),
  };
  const records = new Collected<ReadableLogRecord>();
  const spans = new Collected<ReadableSpan>();
  const done = () => Promise.resolve();
  const recordSink: LogRecordProcessor = {
    onEmit: (r: SdkLogRecord) => void records.items.push(r),
    forceFlush: done,
    shutdown: done,
  };
  const spanSink: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (s) => void spans.items.push(s),
    forceFlush: done,
    shutdown: done,
  };
  const logger = new LoggerProvider({ resource, processors: [recordSink] }).getLogger('warden');
  const tracer = new TracerProvider({ resource, spanProcessors: [spanSink] }).getTracer('warden');

  const queue: AuditRow[] = [];
  let dropped = 0;
  let failed = 0;
  let warnedAt = -Infinity;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  let said = '';
  const maybeWarn = (force = false): void => {
    const now = Date.now();
    const counts = `${failed}/${dropped}`;
    if (dropped === 0 && failed === 0) return;
    if (force ? counts === said : now - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now;
    said = counts;
    warn(
      `telemetry: ${failed} export(s) to ${settings.endpoint} failed and ${dropped} audit row(s) ` +
        'were dropped so far (the collector is slow or unreachable); the audit log keeps them all',
    );
  };

  const convert = (row: AuditRow): void => {
    const time = Date.parse(row.ts);
    const [severityNumber, severityText] = severity[row.outcome];
    logger.emit({
      timestamp: time,
      severityNumber,
      severityText,
      eventName: row.kind,
      body: JSON.stringify(row.event),
      attributes: rowAttributes(row),
    });
    const e = row.event;
    if ((e.kind !== 'mcp.response' && e.kind !== 'mcp.call') || e.method !== 'tools/call') return;
    const span = tracer.startSpan(`tools/call ${e.tool ?? ''}`.trim(), {
      kind: SpanKind.SERVER,
      startTime: time - e.durationMs,
      attributes: {
        ...rowAttributes(row),
        'mcp.method.name': 'tools/call',
        ...(e.tool ? { 'gen_ai.tool.name': e.tool } : {}),
        'warden.duration_ms': e.durationMs,
      },
    });
    if (e.error || row.outcome === 'error' || row.outcome === 'refused')
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.error?.message ?? row.outcome });
    span.end(time);
  };

  /** What the next sends carry: the rows converted and serialised once, then sent until done. */
  let batch:
    { bodies: [url: string, body: Uint8Array][]; rows: number; attempts: number } | undefined;
  const nextBatch = (): NonNullable<typeof batch> => {
    const rows = queue.splice(0, BATCH);
    for (const row of rows) convert(row);
    const bodies: [string, Uint8Array][] = [];
    const logs = JsonLogsSerializer.serializeRequest(records.take());
    const traces = spans.items.length
      ? JsonTraceSerializer.serializeRequest(spans.take())
      : undefined;
    if (logs) bodies.push([urls.logs, logs]);
    if (traces) bodies.push([urls.traces, traces]);
    return { bodies, rows: rows.length, attempts: 0 };
  };

  const pump = (): void => {
    timer = undefined;
    if (inFlight || (!batch && queue.length === 0)) return;
    const current = (batch ??= nextBatch());
    current.attempts++;
    inFlight = Promise.all(current.bodies.map(([url, body]) => poster.post(url, body))).then(
      (results) => {
        inFlight = undefined;
        const outcomes = results.map((r) => r.outcome);
        const retry = current.bodies.filter((_, i) => outcomes[i] === 'retry');
        const over = retry.length === 0 || current.attempts >= ATTEMPTS || closed;
        const lost = current.bodies.filter(
          (_, i) => outcomes[i] === 'failed' || (over && outcomes[i] === 'retry'),
        );
        if (lost.length > 0) failed++;
        // The rows' log records never reached the collector: they count as dropped.
        if (lost.some(([url]) => url === urls.logs)) dropped += current.rows;
        current.bodies = retry;
        if (over) batch = undefined;
        maybeWarn();
        if (closed || (!batch && queue.length === 0)) return;
        // As long as the collector asked (within reason) before a batch is sent again.
        const asked = Math.max(0, ...results.map((r) => r.retryAfterMs ?? 0));
        const pause = Math.max(RETRY_MS, Math.min(asked, MAX_RETRY_AFTER_MS));
        timer = setTimeout(pump, outcomes.every((o) => o === 'sent') ? 0 : pause);
      },
    );
  };

  return {
    push(rows) {
      if (closed) return;
      const room = Math.max(0, limit - queue.length);
      if (rows.length > room) dropped += rows.length - room;
      for (let i = 0; i < Math.min(room, rows.length); i++) queue.push(rows[i]!);
      if (rows.length > room) maybeWarn();
      timer ??= setTimeout(pump, 0);
    },
    dropped: () => dropped,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      // Bounded as a whole: a dead or refusing collector must not hold up Warden's exit, nor a
      // command's. What is still in flight at the deadline is aborted.
      const deadline = new Promise<void>((r) => setTimeout(r, CLOSE_WAIT_MS).unref());
      const wait = (p: Promise<unknown> | undefined) => Promise.race([p, deadline]);
      await wait(inFlight);
      if (!inFlight && (batch || queue.length > 0)) {
        pump();
        await wait(inFlight);
      }
      dropped += queue.splice(0).length;
      poster.close();
      await inFlight;
      maybeWarn(true);
    },
  };
}
