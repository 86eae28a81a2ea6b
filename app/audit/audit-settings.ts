/**
 * How long the audit log keeps its rows, set in config.json (`audit.retention`) and in the UI.
 * Rows older than `maxAgeDays`, and the oldest rows while the log holds more than `maxSizeMb`, are
 * removed; the log then starts at an anchor row so that `verify` still checks what is kept.
 * `null` means no limit of that kind.
 */
import { z } from 'zod';

export const auditRetentionSchema = z.object({
  maxSizeMb: z.number().int().min(1).max(1_000_000).nullable(),
  maxAgeDays: z.number().int().min(1).max(36_500).nullable(),
});
export type AuditRetention = z.infer<typeof auditRetentionSchema>;

export const auditSettingsSchema = z.object({ retention: auditRetentionSchema });
export type AuditSettings = z.infer<typeof auditSettingsSchema>;
