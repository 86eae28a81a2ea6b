/** Tool-call approvals and tool drift, as they cross the contract. */
import { z } from 'zod';
import { toolDefinitionSchema } from '../policy/policy-schema';

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
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

export const approvalDecisionInputSchema = z.object({
  id: z.string(),
  decision: z.enum(['approve', 'deny']),
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

export const driftDecisionInputSchema = z.object({
  server: z.string(),
  tool: z.string(),
  decision: z.enum(['accept', 'keep-blocked']),
});
