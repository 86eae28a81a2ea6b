/**
 * Turns the audit log's OpenTelemetry export on where config.json asks for it. The OpenTelemetry
 * packages are loaded only then, after the log is open, so that no start-up path (`warden
 * connect` above all) pays for them when export is off.
 */
import type { AuditRow } from '../../app/audit/audit-row';
import type { TelemetrySettings } from '../../app/telemetry/telemetry-settings';
import type { TelemetryExport } from './otlp-export';

/** Rows kept while the export's modules load. */
const EARLY_LIMIT = 4096;

/** The audit store's side the export needs: its written batches. */
export interface AuditFeed {
  subscribe(listener: (rows: AuditRow[]) => void): () => void;
}

/** Stops the export (what is queued is sent first, within the export timeout). */
export type StopTelemetry = () => Promise<void>;

/** Starts exporting `audit` to `settings` (none when undefined); never throws. */
export function startTelemetry(
  settings: TelemetrySettings | undefined,
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
  const started = import('./otlp-export').then(
    ({ startTelemetryExport }) => {
      if (stopped) return;
      exporter = startTelemetryExport({ settings, warn });
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
