/**
 * Where Warden sends its audit events and call spans as OpenTelemetry (OTLP over HTTP), set in
 * config.json (`telemetry`) and with `warden telemetry set`. Absent means no export at all.
 * Header values (a collector's API key, for instance) live in the secret store; config.json
 * keeps only their names and references.
 */
import { z } from 'zod';

/** An HTTP header name (a token) and a value without line breaks or other control characters. */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'not a header name');
const headerValue = z.string().regex(/^[\t\x20-\x7e\x80-\uffff]{0,8192}$/, 'not a header value');

export const telemetrySettingsSchema = z.object({
  /**
   * The collector's OTLP/HTTP base address; logs go to `/v1/logs` and spans to `/v1/traces`
   * under it, as JSON.
   */
  endpoint: z
    .string()
    .max(2048)
    .regex(
      /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i,
      'expected an http:// or https:// address without credentials, query or fragment',
    ),
  /**
   * Sent with every export: each value is a reference into the secret store. A plain string is a
   * value an earlier version wrote into config.json; it is still sent, and `warden telemetry set`
   * moves it to the secret store.
   */
  headers: z
    .record(headerName, z.union([headerValue, z.object({ ref: z.string().min(1).max(512) })]))
    .optional(),
});
export type TelemetrySettings = z.infer<typeof telemetrySettingsSchema>;

/** The settings as the export uses them, every header value read from the secret store. */
export interface ResolvedTelemetry {
  endpoint: string;
  headers: Record<string, string>;
}

/** The secret-store reference of the telemetry header `name`. */
export function telemetryHeaderRef(name: string): string {
  return `telemetry/header/${name.toLowerCase()}`;
}

/** Why `name: value` cannot be sent as a header, or undefined when it can. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!headerName.safeParse(name).success) return `"${name}" is not a header name`;
  if (!headerValue.safeParse(value).success)
    return `the value of ${name} holds a line break or another control character`;
  return undefined;
}

/** The OTLP/HTTP address of one signal under the configured base address. */
export function signalUrl(endpoint: string, signal: 'logs' | 'traces'): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/${signal}`;
}
