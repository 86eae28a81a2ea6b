/**
 * Where Warden sends its audit events and call spans as OpenTelemetry (OTLP over HTTP), set in
 * config.json (`telemetry`) and with `warden telemetry set`. Absent means no export at all.
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
  /** Sent with every export (a collector's API key, for instance). */
  headers: z.record(headerName, headerValue).optional(),
});
export type TelemetrySettings = z.infer<typeof telemetrySettingsSchema>;

/** The OTLP/HTTP address of one signal under the configured base address. */
export function signalUrl(endpoint: string, signal: 'logs' | 'traces'): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/${signal}`;
}
