/** Running server instances as the UI sees them: one per client session. */
import { z } from 'zod';
import { launchErrorSchema } from './launch-error-schema';

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
    /** Present when the launch was refused (never run bare): the cause and its remedy. */
    launchError: launchErrorSchema.optional(),
  }),
]);
export type InstanceState = z.infer<typeof instanceStateSchema>;

/** A likely cause of a failed start that one policy change fixes, offered beside the reason. */
export const failureHintSchema = z.discriminatedUnion('kind', [
  /** The server's script (or a file it needs) lies outside every folder the sandbox shows. */
  z.object({ kind: z.literal('add-folder'), path: z.string(), folder: z.string() }),
  /** The server wrote into a folder it may only read. */
  z.object({ kind: z.literal('make-writable'), path: z.string(), root: z.string() }),
]);
export type FailureHint = z.infer<typeof failureHintSchema>;

export const instanceViewSchema = z.object({
  id: z.string(),
  server: z.string(),
  /** Who opened the session: `stdio`, `http`, the client's name when it said. */
  client: z.string(),
  /** The name (and version) the client gave in `initialize`; untrusted text. */
  clientName: z.string().optional(),
  /**
   * The policy revision in effect: the one the instance was launched with, or a later one that
   * changed only what it follows without a restart (its tools, its idle timeout).
   */
  revision: z.number().int().nonnegative(),
  backend: z.string().optional(),
  state: instanceStateSchema,
  restarts: z.number().int().nonnegative(),
  /** The last lines the server wrote to stderr (bounded). */
  stderrTail: z.array(z.string()),
  /** True once the current process answered `initialize`. */
  ready: z.boolean().optional(),
  /**
   * When the process ended before answering: the most telling stderr lines (the first error line,
   * then the last meaningful ones), and a fix when the cause is a known one.
   */
  failure: z.object({ lines: z.array(z.string()), hint: failureHintSchema.optional() }).optional(),
});
export type InstanceView = z.infer<typeof instanceViewSchema>;

export const instanceRefSchema = z.object({ id: z.string() });
