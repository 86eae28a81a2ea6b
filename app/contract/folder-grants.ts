/**
 * Folder grants as they cross the contract: a workspace folder a client offered as an MCP root
 * that lies outside the server's policy, held in the inbox until a person decides whether the
 * server may see it, and how.
 */
import { z } from 'zod';
import { decideGrantInputSchema, pendingGrantSchema } from './grants';

/**
 * read-only or read-write, for this client session only (the instance restarts with the folder)
 * or always (saved to the server's `filesystem.roots`, a new revision) · deny (left out for the
 * rest of this session).
 */
export const folderDecisionSchema = z.enum([
  'allow-read-session',
  'allow-write-session',
  'allow-read-always',
  'allow-write-always',
  'deny',
]);
export type FolderDecision = z.infer<typeof folderDecisionSchema>;

/** A client root outside the policy, waiting for a decision; left out at `expiresAt`. */
export const pendingFolderGrantSchema = pendingGrantSchema
  .pick({ id: true, server: true, instance: true, createdAt: true, expiresAt: true })
  .extend({
    /** The folder as the sandbox would bind it: its real path on this host. */
    path: z.string(),
    /** Who opened the session, as Warden named it. */
    client: z.string(),
  });
export type PendingFolderGrant = z.infer<typeof pendingFolderGrantSchema>;

export const decideFolderInputSchema = decideGrantInputSchema.extend({
  decision: folderDecisionSchema,
});

/** How a folder grant ended: a decision, the timeout, its session ending, or a layer refusing. */
export const folderOutcomeSchema = z.union([
  folderDecisionSchema,
  z.enum(['timeout', 'cancelled', 'refused']),
]);
export type FolderOutcome = z.infer<typeof folderOutcomeSchema>;
