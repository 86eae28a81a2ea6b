/**
 * What a config without an `audit` section means: 1 GB and a year. Apart from the schema
 * (audit-settings.ts), so that a core opening a config recorded as valid loads no zod.
 */
import type { AuditSettings } from './audit-settings';

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = {
  retention: { maxSizeMb: 1024, maxAgeDays: 365 },
};
