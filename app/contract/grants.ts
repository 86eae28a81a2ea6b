/**
 * Runtime network grants as they cross the contract: the pending asks the UI shows, the five
 * decisions a person can make, and the egress decision recorded in the audit log.
 */
import { z } from 'zod';
import { serverNameSchema } from '../policy/policy-schema';

/** allow once (this connection) · allow for this instance's session · always (saved to
 * `network.allow`) · deny (this connection) · always deny (saved to `network.deny`); the audit
 * log records the same enum. */
export const grantDecisionSchema = z.enum([
  'allow-once',
  'allow-session',
  'allow-always',
  'deny',
  'deny-always',
]);
export type GrantDecision = z.infer<typeof grantDecisionSchema>;

/** A destination held open while the user decides; refused at `expiresAt`. */
export const pendingGrantSchema = z.object({
  id: z.string(),
  server: serverNameSchema,
  instance: z.string(),
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  /** Connections currently waiting on this grant. */
  waiting: z.number().int().nonnegative(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type PendingGrant = z.infer<typeof pendingGrantSchema>;

export const decideGrantInputSchema = z.object({
  id: z.string().min(1),
  decision: grantDecisionSchema,
});

/** How a pending grant ended: a decision, the timeout, or the instance going away. */
export const grantOutcomeSchema = z.union([grantDecisionSchema, z.enum(['timeout', 'cancelled'])]);
export type GrantOutcomeKind = z.infer<typeof grantOutcomeSchema>;

export const grantDecidedEventSchema = z.object({
  grant: pendingGrantSchema,
  outcome: grantOutcomeSchema,
  /** The pattern saved to the policy for the two "always" decisions. */
  savedRule: z.object({ list: z.enum(['allow', 'deny']), pattern: z.string() }).optional(),
  at: z.string(),
});
export type GrantDecidedEvent = z.infer<typeof grantDecidedEventSchema>;

export const egressReasonSchema = z.enum([
  'denied',
  'not-allowed',
  'ask-timeout',
  'address-blocked',
  'resolve-failed',
  'connect-failed',
  'limit',
  'bad-destination',
]);
export type EgressReason = z.infer<typeof egressReasonSchema>;

/** One connection attempt and what was decided, for the audit log. */
export const egressDecisionEventSchema = z.object({
  kind: z.literal('egress'),
  instance: z.string(),
  server: serverNameSchema,
  host: z.string(),
  port: z.number().int(),
  /** The address connected to (or refused after resolution). */
  address: z.string().optional(),
  decision: z.enum(['allowed', 'refused']),
  reason: egressReasonSchema.optional(),
  /** The rule or grant that decided, e.g. `allow *.github.com`, `grant session g-3`. */
  rule: z.string().optional(),
  message: z.string().optional(),
  bytesUp: z.number().int().nonnegative(),
  bytesDown: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  at: z.string(),
});
export type EgressDecisionEvent = z.infer<typeof egressDecisionEventSchema>;
