/**
 * Changes where the audit log is exported (config.json's `telemetry`), with each header value in
 * the secret store of the core that makes the change: `warden telemetry set|off` runs this in
 * the running core when there is one (its store is the one its export reads), else in its own
 * process with the headless store. The core reads the setting when it starts.
 */
import type { ContractError } from '../../app/contract/contract-error';
import type { TelemetryView } from '../../app/contract/telemetry';
import { type Result, err, ok } from '../../app/result';
import {
  type TelemetrySettings,
  headerProblem,
  telemetryHeaderRef,
} from '../../app/telemetry/telemetry-settings';
import type { ConfigStore, ConfigStoreError } from '../config/config-store';
import type { SecretStore } from '../secrets/secret-store';

/** A config store's refusal as the contract carries it (its field errors named under it). */
const refusal = (error: ConfigStoreError): ContractError =>
  error.kind === 'invalid-input'
    ? { kind: 'invalid-input', message: error.message, fields: error.fields }
    : { kind: error.kind, message: error.message };

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

/**
 * Exports to `endpoint` with `headers`: the setting saved with references, then each value
 * stored (the setting put back as it was when one cannot be), then the values no longer named
 * forgotten.
 */
export async function setTelemetry(
  config: ConfigStore,
  secrets: SecretStore,
  input: { endpoint: string; headers: readonly { name: string; value: string }[] },
): Promise<Result<TelemetryView, ContractError>> {
  const problem = input.headers.map((h) => headerProblem(h.name, h.value)).find(Boolean);
  if (problem) return err({ kind: 'invalid-input', message: `telemetry.headers: ${problem}` });
  const before = config.telemetry();
  const headers = Object.fromEntries(
    input.headers.map(({ name }) => [name, { ref: telemetryHeaderRef(name) }]),
  );
  const saved = await config.setTelemetry({
    endpoint: input.endpoint,
    ...(input.headers.length ? { headers } : {}),
  });
  if (!saved.ok) return err(refusal(saved.error));
  for (const { name, value } of input.headers) {
    const stored = await secrets.set(telemetryHeaderRef(name), value);
    if (!stored.ok) {
      await config.setTelemetry(before);
      await config.flush();
      return err({ kind: 'internal', message: stored.error.message, remedy: stored.error.remedy });
    }
  }
  await config.flush();
  await forgetHeaders(secrets, before, Object.keys(headers));
  return ok({ endpoint: input.endpoint, headers: Object.keys(headers) });
}

/** Turns the export off and forgets the stored header values. */
export async function telemetryOff(
  config: ConfigStore,
  secrets: SecretStore,
): Promise<Result<{ off: true }, ContractError>> {
  const before = config.telemetry();
  const saved = await config.setTelemetry(undefined);
  if (!saved.ok) return err(refusal(saved.error));
  await config.flush();
  await forgetHeaders(secrets, before);
  return ok({ off: true });
}
