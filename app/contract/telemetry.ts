/**
 * Where the audit log is exported as OpenTelemetry, changed through the core that holds the
 * secret store (the control panel, `warden telemetry set|off` with the app or `warden serve`
 * running): the header values go to that core's store, config.json keeps their references, and
 * that core's export follows the change at once.
 */
import { z } from 'zod';

/** The settings as shown: the endpoint and the header names, never their values. */
export const telemetryViewSchema = z.object({
  endpoint: z.string(),
  headers: z.array(z.string()),
});
export type TelemetryView = z.infer<typeof telemetryViewSchema>;

/** The setting this core holds and what its export is doing. */
export const telemetryStatusSchema = z.object({
  /** Absent: no export is set. */
  settings: telemetryViewSchema.optional(),
  /** `failed`: set, but off for `problem` (a header value it cannot read, say). */
  export: z.enum(['off', 'starting', 'on', 'failed']),
  problem: z.string().optional(),
});
export type TelemetryStatus = z.infer<typeof telemetryStatusSchema>;

/** Spread into the contract's `queries`. */
export const telemetryQueries = {
  'telemetry.get': { input: z.object({}).strict(), output: telemetryStatusSchema },
} as const;

/** Spread into the contract's `commands`. */
export const telemetryCommands = {
  /** Exports to `endpoint` with `headers` (values stored as secrets), replacing what was set. */
  'telemetry.set': {
    input: z
      .object({
        endpoint: z.string().max(2048),
        headers: z
          .array(z.object({ name: z.string().max(256), value: z.string().max(8192) }).strict())
          .max(64),
      })
      .strict(),
    output: telemetryViewSchema,
  },
  /** Turns the export off and forgets the stored header values. */
  'telemetry.off': { input: z.object({}).strict(), output: z.object({ off: z.literal(true) }) },
} as const;
