/** Contract payloads of the global policy (the guards every server inherits) and effective views. */
import { z } from 'zod';
import { guardsSchema } from '../policy/guards-schema';

export const policyViewSchema = z.object({
  /** The global part as stored; null means the defaults. */
  stored: guardsSchema.nullable(),
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

export const effectiveLineSchema = z.object({
  field: z.string(),
  value: z.string(),
  layer: z.enum(['managed', 'global', 'server', 'default']),
  exception: z.boolean().optional(),
});

export const effectivePolicyViewSchema = z.object({ lines: z.array(effectiveLineSchema) });
export type EffectivePolicyView = z.infer<typeof effectivePolicyViewSchema>;
