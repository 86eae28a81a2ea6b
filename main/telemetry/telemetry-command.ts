/**
 * `warden telemetry set --endpoint URL [--header NAME:VALUE]…`, `warden telemetry off` and
 * `warden telemetry show`: where the audit log is exported as OpenTelemetry (config.json's
 * `telemetry`). Header values go to the secret store, config.json keeps their references. With
 * the app or `warden serve` running, the change is made there, in the store its export reads
 * (the app's is the OS keychain), and its export follows at once; without one, a core reads the
 * setting when it next starts.
 */
import { parseArgs } from 'node:util';
import type { Reply } from '../../app/contract/reply';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CliIo, UsageError } from '../cli/cli-io';
import { ConfigStore } from '../config/config-store';
import { headlessSecretsWarning } from '../secrets/headless-secret-store';

/** When the change takes effect: at once in a running core, else when one next starts. */
const when = (running: boolean) =>
  running
    ? 'the running Warden exports accordingly from now on'
    : 'Warden applies it when its core next starts (the app, warden serve, warden connect)';

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
  if (sub === 'show') {
    const now = (await ConfigStore.open({ wardenHome })).telemetry();
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
  if (sub !== 'set' && sub !== 'off')
    throw new UsageError(`unknown telemetry command '${sub}' (set, off or show)`);
  if (sub === 'set' && !values.endpoint)
    throw new UsageError('telemetry set: --endpoint URL is required');
  const headers = (values.header ?? []).map(header).map(([name, value]) => ({ name, value }));
  const input = sub === 'set' ? { endpoint: values.endpoint!, headers } : {};
  // With a core running, it makes the change: its export reads the values from its own store.
  const { runningCore } = await import('../core/control-channel');
  let running;
  try {
    running = await runningCore(wardenHome);
  } catch (error) {
    io.stderr(`warden: ${showUntrusted((error as Error).message)}\n`);
    return 1;
  }
  const reply = running
    ? await running.handle(`telemetry.${sub}`, input)
    : await changeHere(wardenHome, `telemetry.${sub}`, input);
  if (!reply.ok) {
    const { message, remedy } = reply.error;
    io.stderr(`warden telemetry: ${message}${remedy ? `; ${remedy}` : ''}\n`);
    return 1;
  }
  if (sub === 'off') {
    io.stdout(`telemetry: off; ${when(running !== undefined)}\n`);
    return 0;
  }
  if (headers.length > 0 && !running) io.stderr(`warden: ${headlessSecretsWarning}\n`);
  io.stdout(
    `telemetry: audit events and call spans go to ${values.endpoint} (logs at /v1/logs, ` +
      `spans at /v1/traces); ${when(running !== undefined)}\n`,
  );
  return 0;
}

/**
 * The change made by a core of this process (with the headless store), as a running core makes
 * it: recorded in the audit log. That core exports nothing, so that the command never waits on a
 * collector (one that refuses is retried for seconds).
 */
async function changeHere(wardenHome: string, op: string, input: unknown): Promise<Reply> {
  const { createCore } = await import('../core/core');
  const core = await createCore({ wardenHome, probeHost: false, exportTelemetry: false });
  try {
    return await core.handle(op, input);
  } finally {
    await core.close();
  }
}
