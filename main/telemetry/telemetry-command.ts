/**
 * `warden telemetry set --endpoint URL [--header NAME:VALUE]…`, `warden telemetry off` and
 * `warden telemetry show`: where the audit log is exported as OpenTelemetry (config.json's
 * `telemetry`). Header values go to the secret store, config.json keeps their references. The
 * core reads it when it starts.
 */
import { parseArgs } from 'node:util';
import {
  type TelemetrySettings,
  headerProblem,
  telemetryHeaderRef,
} from '../../app/telemetry/telemetry-settings';
import { type CliIo, UsageError } from '../cli/cli-io';
import { ConfigStore } from '../config/config-store';
import { headlessSecretStore, headlessSecretsWarning } from '../secrets/headless-secret-store';
import type { SecretStore } from '../secrets/secret-store';

const RESTART = 'Warden applies it when its core next starts (restart the app or warden serve)';

/** `Name: value` into its parts. */
function header(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError(`--header: expected 'Name: value', got '${text}'`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

/** Removes the stored values of `settings`' headers that `keep` does not name again. */
async function forgetHeaders(
  secrets: SecretStore,
  settings: TelemetrySettings | undefined,
  keep: readonly string[] = [],
): Promise<void> {
  const kept = new Set(keep.map(telemetryHeaderRef));
  for (const value of Object.values(settings?.headers ?? {}))
    if (typeof value !== 'string' && !kept.has(value.ref)) await secrets.delete(value.ref);
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
  const secrets = headlessSecretStore(wardenHome);
  if (sub === 'off') {
    const before = config.telemetry();
    await config.setTelemetry(undefined);
    await config.flush();
    await forgetHeaders(secrets, before);
    io.stdout(`telemetry: off; ${RESTART}\n`);
    return 0;
  }
  if (sub !== 'set') throw new UsageError(`unknown telemetry command '${sub}' (set, off or show)`);
  if (!values.endpoint) throw new UsageError('telemetry set: --endpoint URL is required');
  const given = (values.header ?? []).map(header);
  const problem = given.map(([name, value]) => headerProblem(name, value)).find(Boolean);
  if (problem) {
    io.stderr(`warden telemetry: telemetry.headers: ${problem}\n`);
    return 1;
  }
  const before = config.telemetry();
  const headers = Object.fromEntries(
    given.map(([name]) => [name, { ref: telemetryHeaderRef(name) }]),
  );
  const saved = await config.setTelemetry({
    endpoint: values.endpoint,
    ...(given.length ? { headers } : {}),
  });
  if (!saved.ok) {
    io.stderr(`warden telemetry: ${saved.error.message}\n`);
    return 1;
  }
  for (const [name, value] of given) {
    const stored = await secrets.set(telemetryHeaderRef(name), value);
    if (!stored.ok) {
      await config.setTelemetry(before);
      await config.flush();
      io.stderr(`warden telemetry: ${stored.error.message}; ${stored.error.remedy}\n`);
      return 1;
    }
  }
  await config.flush();
  if (given.length > 0) io.stderr(`warden: ${headlessSecretsWarning}\n`);
  await forgetHeaders(secrets, before, Object.keys(headers));
  io.stdout(
    `telemetry: audit events and call spans go to ${values.endpoint} (logs at /v1/logs, ` +
      `spans at /v1/traces); ${RESTART}\n`,
  );
  return 0;
}
