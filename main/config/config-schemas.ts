/**
 * The schemas the config store validates with. The store loads this module the first time it
 * validates anything: a config whose bytes are recorded as valid opens without it, so the core
 * that relays one session loads no zod before its server answers.
 */
export { auditSettingsSchema } from '../../app/audit/audit-settings';
export { guardsSchema } from '../../app/policy/guards-schema';
export { telemetrySettingsSchema } from '../../app/telemetry/telemetry-settings';
export {
  configSchema,
  launchSchema,
  policySchema,
  remoteSchema,
  serverNameSchema,
} from '../../app/policy/policy-schema';
