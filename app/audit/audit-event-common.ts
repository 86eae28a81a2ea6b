/**
 * What every audit event shares: its outcome, the count of repeats a coalesced row stands for,
 * the fields every event carries, and the shapes several kinds use (a count, a JSON-RPC id).
 */
import { z } from 'zod';

/** How the thing recorded ended: done, refused by policy or the user, failed, or merely noted. */
export const auditOutcomeSchema = z.enum(['ok', 'refused', 'error', 'info']);
export type AuditOutcome = z.infer<typeof auditOutcomeSchema>;

export const count = z.number().int().nonnegative();

/**
 * On a row that stands for repeats of the event written just before it (same instance, kind,
 * decision and destination): how many, and the first and last time. The row's other fields are
 * those of the first repeat, with bytes added up where the kind has them.
 */
export const auditRepeatSchema = z.object({
  count: z.number().int().positive(),
  firstTs: z.string(),
  lastTs: z.string(),
});
export type AuditRepeat = z.infer<typeof auditRepeatSchema>;

/** Fields every event carries. `ts` is an ISO 8601 UTC timestamp (`Date#toISOString`). */
export const common = {
  ts: z.string().min(1),
  server: z.string().min(1).optional(),
  instance: z.string().min(1).optional(),
  outcome: auditOutcomeSchema,
  repeat: auditRepeatSchema.optional(),
};
export const jsonRpcId = z.union([z.string(), z.number(), z.null()]);
