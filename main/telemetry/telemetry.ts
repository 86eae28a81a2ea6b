/**
 * Turns the audit log's OpenTelemetry export on where config.json asks for it. The OpenTelemetry
 * packages are loaded only then, after the log is open, so that no start-up path (`warden
 * connect` above all) pays for them when export is off.
 */
import type { AuditRow } from '../../app/audit/audit-row';
import { type Result, err, ok } from '../../app/result';
import type { ResolvedTelemetry, TelemetrySettings } from '../../app/telemetry/telemetry-settings';
import type { TelemetryExport } from './otlp-export';

/** Rows kept while the export's modules load. */
const EARLY_LIMIT = 4096;

/** The audit store's side the export needs: its written batches. */
export interface AuditFeed {
  subscribe(listener: (rows: AuditRow[]) => void): () => void;
}

/** Stops the export (what is queued is sent first, within the export timeout). */
export type StopTelemetry = () => Promise<void>;

/** Reads a secret-store reference; undefined when nothing is stored under it. */
export type ReadSecret = (ref: string) => Promise<Result<string | undefined, { message: string }>>;

/**
 * The settings with every header value read from the secret store; an error names the header
 * whose value cannot be read (the export then stays off rather than send without it).
 */
export async function resolveTelemetry(
  settings: TelemetrySettings,
  read: ReadSecret,
): Promise<Result<ResolvedTelemetry, string>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings.headers ?? {})) {
    if (typeof value === 'string') {
      headers[name] = value;
      continue;
    }
    const got = await read(value.ref);
    if (!got.ok) return err(`the value of header ${name}: ${got.error.message}`);
    if (got.value === undefined)
      return err(
        `the value of header ${name} is not in this secret store; set it again with warden telemetry set`,
      );
    headers[name] = got.value;
  }
  return ok({ endpoint: settings.endpoint, headers });
}

/**
 * Starts exporting `audit` to `settings` (none when undefined), header values read through
 * `read`; never throws.
 */
export function startTelemetry(
  settings: TelemetrySettings | undefined,
  read: ReadSecret,
  audit: AuditFeed,
  warn: (line: string) => void,
): StopTelemetry {
  if (!settings) return () => Promise.resolve();
  let stopped = false;
  // Rows written while the modules load wait here (bounded like the export's own queue).
  let early: AuditRow[] | undefined = [];
  let exporter: TelemetryExport | undefined;
  const unsubscribe = audit.subscribe((rows) => {
    if (exporter) exporter.push(rows);
    else if (early && early.length < EARLY_LIMIT)
      early.push(...rows.slice(0, EARLY_LIMIT - early.length));
  });
  const started = Promise.all([resolveTelemetry(settings, read), import('./otlp-export')]).then(
    ([resolved, { startTelemetryExport }]) => {
      if (stopped) return;
      if (!resolved.ok) {
        unsubscribe();
        early = undefined;
        warn(`telemetry: export is off: ${resolved.error}`);
        return;
      }
      exporter = startTelemetryExport({ settings: resolved.value, warn });
      exporter.push(early ?? []);
      early = undefined;
    },
    (error: unknown) => {
      unsubscribe();
      early = undefined;
      warn(`telemetry: export is off, its modules did not load: ${(error as Error).message}`);
    },
  );
  return async () => {
    stopped = true;
    unsubscribe();
    await started;
    await exporter?.close();
  };
}
