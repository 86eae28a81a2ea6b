/**
 * `warden telemetry set --endpoint URL [--header NAME:VALUE]…`, `warden telemetry off` and
 * `warden telemetry show`: where the audit log is exported as OpenTelemetry (config.json's
 * `telemetry`). The core reads it when it starts.
 */
import { parseArgs } from 'node:util';
import { type CliIo, UsageError } from '../cli/cli-io';
import { ConfigStore } from '../config/config-store';

const RESTART = 'Warden applies it when its core next starts (restart the app or warden serve)';

/** `Name: value` into its parts. */
function header(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError(`--header: expected 'Name: value', got '${text}'`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

/** Runs `warden telemetry SUBCOMMAND …`. */
export async function runTelemetryCommand(
  [sub, ...rest]: string[],
  io: CliIo,
  wardenHome: string,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      endpoint: { type: 'string' },
      header: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const config = await ConfigStore.open({ wardenHome });
  if (sub === 'show') {
    const now = config.telemetry();
    // Header values may be keys: only their names are shown.
    const shown = now && { endpoint: now.endpoint, headers: Object.keys(now.headers ?? {}) };
    if (values.json) io.stdout(`${JSON.stringify(shown ?? null)}\n`);
    else if (!shown) io.stdout('telemetry: off (the audit log is not exported)\n');
    else
      io.stdout(
        `telemetry: audit events and call spans go to ${shown.endpoint} (OTLP/HTTP JSON)` +
          `${shown.headers.length ? `, with headers ${shown.headers.join(', ')}` : ''}\n`,
      );
    return 0;
  }
  if (sub === 'off') {
    await config.setTelemetry(undefined);
    await config.flush();
    io.stdout(`telemetry: off; ${RESTART}\n`);
    return 0;
  }
  if (sub !== 'set') throw new UsageError(`unknown telemetry command '${sub}' (set, off or show)`);
  if (!values.endpoint) throw new UsageError('telemetry set: --endpoint URL is required');
  const headers = Object.fromEntries((values.header ?? []).map(header));
  const saved = await config.setTelemetry({
    endpoint: values.endpoint,
    ...(values.header?.length ? { headers } : {}),
  });
  await config.flush();
  if (!saved.ok) {
    io.stderr(`warden telemetry: ${saved.error.message}\n`);
    return 1;
  }
  io.stdout(
    `telemetry: audit events and call spans go to ${values.endpoint} (logs at /v1/logs, ` +
      `spans at /v1/traces); ${RESTART}\n`,
  );
  return 0;
}
