/** Contract payloads of the global policy (the guards every server inherits) and effective views. */
import { z } from 'zod';
import { guardsSchema } from '../policy/guards-schema';

export const policyViewSchema = z.object({
  /** The global part as stored; null means the defaults. */
  stored: guardsSchema.nullable(),
  /**
   * A stamp of the stored global part: an update that names it is refused once the part has
   * changed since (another window, the command line, config.json edited by hand).
   */
  revision: z.string(),
  /** The global part as it applies (defaults filled in). */
  applied: guardsSchema,
  managed: z.object({
    path: z.string(),
    /** The managed layer; null when there is no file (or it cannot be used: see error). */
    policy: guardsSchema.nullable(),
    /** Why the file cannot be used; launches are refused while it is set. */
    error: z.string().optional(),
  }),
});
export type PolicyView = z.infer<typeof policyViewSchema>;

/**
 * A new global part. With `expectedRevision` (a view's `revision`), refused as a conflict when the
 * stored part is no longer the one that view showed: an editor never writes over a change it did
 * not see.
 */
export const policyUpdateInputSchema = z
  .object({ guards: guardsSchema, expectedRevision: z.string().max(64).optional() })
  .strict();
export type PolicyUpdateInput = z.input<typeof policyUpdateInputSchema>;

export const effectiveLineSchema = z.object({
  field: z.string(),
  value: z.string(),
  layer: z.enum(['managed', 'global', 'server', 'default']),
  exception: z.boolean().optional(),
});

export const effectivePolicyViewSchema = z.object({ lines: z.array(effectiveLineSchema) });
export type EffectivePolicyView = z.infer<typeof effectivePolicyViewSchema>;
