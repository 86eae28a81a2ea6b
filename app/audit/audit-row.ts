/**
 * Stored audit rows and how they are asked for: filters with keyset pagination (newest first, the
 * cursor is the last id seen), so that a page costs the same at row 50 and at row 5,000,000.
 */
import { z } from 'zod';
import { auditEventSchema, auditKinds, auditKindSchema, auditOutcomeSchema } from './audit-event';

export { GENESIS_HASH } from './genesis-hash';

/** One stored event with its place in the hash chain. */
export const auditRowSchema = z.object({
  id: z.number().int().positive(),
  /** The event's ts, raised to the previous row's where it is older: never decreases by id. */
  ts: z.string(),
  kind: auditKindSchema,
  server: z.string().nullable(),
  instance: z.string().nullable(),
  outcome: auditOutcomeSchema,
  event: auditEventSchema,
  /** sha256 over `prevHash` and the row's canonical fields, hex. */
  hash: z.string(),
  prevHash: z.string(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

export const AUDIT_PAGE_MAX = 1000;

/** A filter over the log. All given fields must match; `text` searches the row's summary. */
export const auditQuerySchema = z.object({
  server: z.string().min(1).optional(),
  instance: z.string().min(1).optional(),
  /** One kind or several. */
  kind: z
    .union([auditKindSchema, z.array(auditKindSchema).min(1).max(auditKinds.length)])
    .optional(),
  outcome: auditOutcomeSchema.optional(),
  /** ISO 8601 timestamps, inclusive. */
  since: z.string().optional(),
  until: z.string().optional(),
  /**
   * Words searched in the summary text, all required, case-insensitive: whole words (`word*` for a
   * prefix) with the full-text index, substrings over the newest rows without it.
   */
  text: z.string().max(200).optional(),
  /** The `nextCursor` of the previous page: rows older than it. */
  cursor: z.number().int().positive().optional(),
  limit: z.number().int().positive().max(AUDIT_PAGE_MAX).default(50),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;
export type AuditQueryParsed = z.output<typeof auditQuerySchema>;

/** One page of rows, newest first; `nextCursor` is absent on the last page. */
export const auditPageSchema = z.object({
  rows: z.array(auditRowSchema),
  nextCursor: z.number().int().positive().optional(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

/** What `verify` found: the whole chain intact, or the first row where it breaks and why. */
export const auditVerifyResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    rows: z.number().int().nonnegative(),
    headHash: z.string(),
    /** Set when retention removed the oldest rows: the chain verifies from after this row. */
    prunedThrough: z.number().int().positive().optional(),
    /** True when the head recorded outside the log was found in it (no rows cut from the end). */
    headChecked: z.boolean().optional(),
  }),
  z.object({
    ok: z.literal(false),
    firstBrokenId: z.number().int(),
    /**
     * `edited`: contents differ from their hash; `missing`: ids skip; `relinked`: prevHash wrong;
     * `truncated`: rows were cut from the end (the head recorded outside the log is gone).
     */
    problem: z.enum(['edited', 'missing', 'relinked', 'truncated']),
    reason: z.string(),
  }),
]);
export type AuditVerifyResult = z.infer<typeof auditVerifyResultSchema>;
