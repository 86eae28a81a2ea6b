/** Running server instances as the UI sees them: one per client session. */
import { z } from 'zod';
import { isolationUnavailableSchema } from '../policy/isolation-error';

/** The lifecycle of one instance, as a tagged union on `kind`. */
export const instanceStateSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('starting'),
    since: z.string(),
    attempt: z.number().int().nonnegative(),
  }),
  z.object({ kind: z.literal('running'), since: z.string(), pid: z.number().int().optional() }),
  z.object({ kind: z.literal('stopping'), since: z.string() }),
  z.object({
    kind: z.literal('exited'),
    at: z.string(),
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
    reason: z.string(),
  }),
  z.object({
    kind: z.literal('failed'),
    at: z.string(),
    reason: z.string(),
    /** Present when the sandbox could not be set up: the launch was refused, never run bare. */
    isolation: isolationUnavailableSchema.optional(),
  }),
]);
export type InstanceState = z.infer<typeof instanceStateSchema>;

export const instanceViewSchema = z.object({
  id: z.string(),
  server: z.string(),
  /** Who opened the session: `stdio`, `http`, the client's name when it said. */
  client: z.string(),
  /** The policy revision the instance was launched with. */
  revision: z.number().int().nonnegative(),
  backend: z.string().optional(),
  state: instanceStateSchema,
  restarts: z.number().int().nonnegative(),
  /** The last lines the server wrote to stderr (bounded). */
  stderrTail: z.array(z.string()),
});
export type InstanceView = z.infer<typeof instanceViewSchema>;

export const instanceRefSchema = z.object({ id: z.string() });
