/** The audit log's settings as the contract carries them: with the revision an editor names. */
import { z } from 'zod';
import { auditRetentionSchema } from '../audit/audit-settings';

export const auditSettingsViewSchema = z.object({
  retention: auditRetentionSchema,
  /**
   * A stamp of the stored settings: a save that names it is refused once they have changed since
   * (another window, config.json edited by hand). Shrinking retention removes rows at once, so a
   * form never writes back limits it did not show.
   */
  revision: z.string(),
});
export type AuditSettingsView = z.infer<typeof auditSettingsViewSchema>;

/** New settings; with `expectedRevision` (a view's `revision`), refused as a conflict when stale. */
export const auditSettingsInputSchema = z
  .object({ retention: auditRetentionSchema, expectedRevision: z.string().max(64).optional() })
  .strict();
export type AuditSettingsInput = z.input<typeof auditSettingsInputSchema>;
