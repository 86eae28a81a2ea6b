/**
 * Signing in to a remote server that asks for OAuth: where its sign-in stands ("sign in again"
 * once the authorization server refused the stored one), and the operations that sign in through
 * the system browser or forget the sign-in. Tokens never cross the contract.
 */
import { z } from 'zod';
import { serverRefSchema } from './servers';

export const oauthStatusSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('not-required') }),
  z.object({ kind: z.literal('signed-out') }),
  z.object({ kind: z.literal('signed-in'), expiresAt: z.number().optional() }),
  z.object({ kind: z.literal('sign-in-required'), reason: z.string(), remedy: z.string() }),
]);
export type OAuthStatusView = z.infer<typeof oauthStatusSchema>;

/** OAuth operations that change state, spread into `commands`. */
export const oauthCommands = {
  /** Signs in through the system browser; answers once the sign-in completed or failed. */
  'servers.signIn': { input: serverRefSchema.strict(), output: oauthStatusSchema },
  /** Forgets the tokens and the client registration. */
  'servers.signOut': {
    input: serverRefSchema.strict(),
    output: z.object({ signedOut: z.boolean() }),
  },
} as const;

/** OAuth operations that only read, spread into `queries`. */
export const oauthQueries = {
  'servers.oauthStatus': { input: serverRefSchema.strict(), output: oauthStatusSchema },
} as const;

export type OAuthOperationName = keyof typeof oauthCommands | keyof typeof oauthQueries;
