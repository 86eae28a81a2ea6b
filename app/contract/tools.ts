/** Tool-call approvals and tool drift, as they cross the contract. */
import { z } from 'zod';
import { toolDefinitionSchema } from '../policy/policy-schema';

/** A credential found in a call's arguments: its kind (and a secret's variable), never its value. */
const foundCredentialSchema = z.object({
  kind: z.string(),
  name: z.string().optional(),
  count: z.number().int().positive(),
});

/**
 * Why a call waits for the user: its tool requires approval, or its arguments carry credentials
 * (`secret` when one is a value Warden holds for another server).
 */
export const approvalReasonSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool-approval') }),
  z.object({
    kind: z.literal('credentials'),
    found: z.array(foundCredentialSchema),
    secret: z.boolean(),
  }),
]);
export type ApprovalReason = z.infer<typeof approvalReasonSchema>;

/** Argument name → rule text (`match=`, `one-of=`, `max-length=`, `equals=`). */
export const callPatternArgsSchema = z.record(z.string(), z.string());

export const pendingApprovalSchema = z.object({
  id: z.string(),
  server: z.string(),
  instance: z.string(),
  tool: z.string(),
  /** The call's arguments, with secret values redacted. */
  args: z.unknown(),
  createdAt: z.string(),
  /** When the call is refused automatically if nobody decides. */
  expiresAt: z.string(),
  reason: approvalReasonSchema,
  /**
   * The argument patterns offered for "always": these exact values, which the user may widen.
   * Absent when "always" is not offered (credentials in the arguments, or arguments that are
   * not named values).
   */
  pattern: callPatternArgsSchema.optional(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/**
 * Allow this call · allow calls with the same arguments for the rest of this session · always
 * allow calls matching `pattern` (saved to the server's policy) · deny.
 */
export const approvalDecisionSchema = z.enum([
  'approve',
  'approve-session',
  'approve-always',
  'deny',
]);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const approvalDecisionInputSchema = z.object({
  id: z.string(),
  decision: approvalDecisionSchema,
  /** For `approve-always`: the patterns to save (default: the ones offered). */
  pattern: callPatternArgsSchema.optional(),
});

/** A tool whose definition changed since it was pinned; hidden until the user accepts it. */
export const toolDriftSchema = z.object({
  server: z.string(),
  tool: z.string(),
  pinned: toolDefinitionSchema,
  current: toolDefinitionSchema,
  /** Which parts differ: `description`, `inputSchema`, `annotations`. */
  fields: z.array(z.string()),
  seenAt: z.string(),
});
export type ToolDrift = z.infer<typeof toolDriftSchema>;

/**
 * The pinned tools a server's whole listings (no cursor asked, none answered) leave out, as the
 * running core saw them: tools the server may no longer offer, whose pins the user may forget.
 */
export const toolListingSchema = z.object({
  server: z.string(),
  /** Each pinned tool left out, by name (sorted), and since when its listings leave it out. */
  unlisted: z.array(z.object({ name: z.string(), since: z.string() })),
});
export type ToolListing = z.infer<typeof toolListingSchema>;

/**
 * Accept pins the definition the user reviewed, sent back as it was shown: a server that changes
 * the tool again after the review gets nothing it was not shown accepted.
 */
export const driftDecisionInputSchema = z.discriminatedUnion('decision', [
  z.object({
    server: z.string(),
    tool: z.string(),
    decision: z.literal('accept'),
    reviewed: toolDefinitionSchema,
  }),
  z.object({ server: z.string(), tool: z.string(), decision: z.literal('keep-blocked') }),
]);
export type DriftDecisionInput = z.infer<typeof driftDecisionInputSchema>;

/**
 * Forget a tool's pinned definition: the next listing that brings the tool pins whatever it then
 * says, without asking (trust on first use again). For a tool the server no longer offers, or one
 * whose pin the user wants to take anew.
 */
export const toolForgetInputSchema = z.object({
  server: z.string(),
  // MCP names a tool in 1 to 128 characters; no longer name is ever pinned.
  tool: z.string().min(1).max(128),
});
