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

/** What a core's export is doing: off, loading, running, or off for the reason given. */
export type TelemetryState =
  { kind: 'off' } | { kind: 'starting' } | { kind: 'on' } | { kind: 'failed'; problem: string };

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
 * `read`; never throws. `onState` hears whether it runs, and why not once it cannot.
 */
export function startTelemetry(
  settings: TelemetrySettings | undefined,
  read: ReadSecret,
  audit: AuditFeed,
  warn: (line: string) => void,
  onState: (state: TelemetryState) => void = () => undefined,
): StopTelemetry {
  if (!settings) {
    onState({ kind: 'off' });
    return () => Promise.resolve();
  }
  onState({ kind: 'starting' });
  const failed = (problem: string) => {
    onState({ kind: 'failed', problem });
    warn(`telemetry: export is off: ${problem}`);
  };
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
        failed(resolved.error);
        return;
      }
      exporter = startTelemetryExport({ settings: resolved.value, warn });
      onState({ kind: 'on' });
      exporter.push(early ?? []);
      early = undefined;
    },
    (error: unknown) => {
      unsubscribe();
      early = undefined;
      failed(`its modules did not load: ${(error as Error).message}`);
    },
  );
  return async () => {
    stopped = true;
    unsubscribe();
    await started;
    await exporter?.close();
  };
}

/** A core's export, which a change of its settings made through that core restarts. */
export interface TelemetryControl {
  state(): TelemetryState;
  /**
   * Exports to `settings` from now on (off when undefined): the running export stops taking rows
   * at once and sends what it holds while the new one starts.
   */
  apply(settings: TelemetrySettings | undefined): void;
  /** Stops the export, and waits for every stopped one to send what it held. */
  stop(): Promise<void>;
}

/** The export of a core that exports nothing (a command's own core). */
export const noTelemetry: TelemetryControl = {
  state: () => ({ kind: 'off' }),
  apply: () => undefined,
  stop: () => Promise.resolve(),
};

export function telemetryControl(
  read: ReadSecret,
  audit: AuditFeed,
  warn: (line: string) => void,
): TelemetryControl {
  let state: TelemetryState = { kind: 'off' };
  let current: StopTelemetry = () => Promise.resolve();
  let generation = 0;
  const stopping = new Set<Promise<void>>();
  const retire = () => {
    // Its first steps (no more rows taken) run now; its sending of what it holds goes on.
    const done = current();
    stopping.add(done);
    void done.finally(() => stopping.delete(done));
  };
  return {
    state: () => state,
    apply: (settings) => {
      retire();
      const mine = ++generation;
      current = startTelemetry(settings, read, audit, warn, (s) => {
        if (mine === generation) state = s;
      });
    },
    stop: async () => {
      generation += 1;
      state = { kind: 'off' };
      retire();
      current = () => Promise.resolve();
      await Promise.all([...stopping]);
    },
  };
}
