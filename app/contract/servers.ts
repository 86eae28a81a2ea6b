/** Server payloads as they cross the contract. */
import { z } from 'zod';
import {
  envNameSchema,
  headerNameSchema,
  launchSchema,
  remoteSchema,
  policySchema,
  serverNameSchema,
  serverSchema,
  userPolicySchema,
} from '../policy/policy-schema';

/** What the UI shows for a server: the stored server plus what the core knows of it now. */
export const serverViewSchema = z.object({
  server: serverSchema,
  /** Full command line as one shell-quoted string, always shown. */
  commandLine: z.string(),
  isolation: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('sandboxed'), backend: z.string() }),
    z.object({ kind: z.literal('off') }),
    /** A remote server: relayed through the gateway, run elsewhere, never in Warden's sandbox. */
    z.object({ kind: z.literal('remote'), transport: z.enum(['streamable-http', 'sse']) }),
    z.object({ kind: z.literal('unavailable'), reason: z.string(), remedy: z.string() }),
  ]),
});
export type ServerView = z.infer<typeof serverViewSchema>;

/** A header of a remote server as the user gives it: the value goes to the secret store. */
export const headerInputSchema = z.object({
  name: headerNameSchema,
  value: z
    .string()
    .min(1, 'must not be empty')
    .regex(/^[^\r\n\0]*$/, 'must be one line'),
});
export type HeaderInput = z.infer<typeof headerInputSchema>;

/** A remote server's upstream as added: header values, which the core stores as secrets. */
export const remoteInputSchema = remoteSchema.omit({ headers: true }).extend({
  headers: z.array(headerInputSchema),
});
export type RemoteInput = z.infer<typeof remoteInputSchema>;

/** A new server: a command to launch, or a remote server's URL (exactly one of the two). */
export const addServerInputSchema = z
  .object({
    name: serverNameSchema,
    launch: launchSchema.optional(),
    remote: remoteInputSchema.optional(),
    policy: policySchema,
  })
  .refine((s) => (s.launch === undefined) !== (s.remote === undefined), {
    message: 'give either a command (launch) or a URL (remote), not both',
    path: ['launch'],
  });
export type AddServerInput = z.infer<typeof addServerInputSchema>;

/** Only the fields the user owns: a policy without the pinned tools (see user-policy.ts). */
export const updateServerInputSchema = z.object({
  name: serverNameSchema,
  launch: launchSchema.optional(),
  /** The user's fields only: pinned tool definitions are the gateway's and stay as stored. */
  policy: userPolicySchema.optional(),
  /** When given, the update is refused if the stored revision moved on (another editor). */
  expectedRevision: z.number().int().positive().optional(),
});
export type UpdateServerInput = z.infer<typeof updateServerInputSchema>;

export const serverRefSchema = z.object({ name: serverNameSchema });

/** A config file that could not be used: moved aside and reported, never overwritten. */
export const configProblemSchema = z.object({
  kind: z.enum(['corrupt', 'invalid', 'newer-schema']),
  message: z.string(),
  movedTo: z.string().optional(),
  at: z.string(),
});
export type ConfigProblem = z.infer<typeof configProblemSchema>;

/** Sets a secret value for one of a server's variables; the value is never sent back. */
export const setSecretInputSchema = z.object({
  name: serverNameSchema,
  variable: envNameSchema,
  value: z.string().min(1, 'must not be empty'),
});
export type SetSecretInput = z.infer<typeof setSecretInputSchema>;
