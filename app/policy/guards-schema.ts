/**
 * The format of the guards (the global part of the config and the managed policy file): what is
 * validated where they are read or changed. Their meaning is in guards.ts.
 */
import { z } from 'zod';
import { entryMessage, patternProblem } from './network-patterns';
import { WORKSPACE_NAMES } from './workspace-files';

/**
 * A hidden path: `~/…` (below the user's home), an absolute path, or a bare file name pattern
 * (`*` matches any run of characters) matched at any depth below a declared root.
 */
export const hiddenPathSchema = z
  .string()
  .min(1, 'must not be empty')
  .refine((p) => p.startsWith('~/') || p.startsWith('/') || !p.includes('/'), {
    message: 'must be ~/PATH, an absolute path, or a file name pattern such as .env.*',
  })
  .refine((p) => !p.split('/').includes('..'), { message: 'must not contain ".."' });

const limitValue = z
  .number('must be a number')
  .int('must be a whole number')
  .positive('must be 1 or more');

export const guardLimitsSchema = z
  .object({
    memoryMb: limitValue,
    pids: limitValue,
    cpuSeconds: limitValue,
    openFiles: limitValue,
    wallSeconds: limitValue,
  })
  .partial()
  .strict();

const destinationSchema = z.string().superRefine((text, ctx) => {
  const problem = patternProblem(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: entryMessage(text, problem) });
});

/** The global part of the config, and the managed policy file's format. Unknown keys are errors. */
export const guardsSchema = z
  .object({
    hiddenPaths: z.array(hiddenPathSchema),
    network: z
      .object({
        deny: z.array(destinationSchema),
        /** When set, every destination a server may reach must lie within one of these. */
        allow: z.array(destinationSchema),
      })
      .partial()
      .strict(),
    limits: guardLimitsSchema,
    isolation: z
      .object({
        allowOff: z.boolean(),
        /** False: every limit must be enforced; a limit accepted as best-effort is refused. */
        allowBestEffort: z.boolean(),
      })
      .partial()
      .strict(),
    workspace: z
      .object({
        /** False: no server may write a workspace file (no `unprotect` exception). */
        allowExceptions: z.boolean(),
      })
      .partial()
      .strict(),
    /** The shortest audit retention allowed: a setting that keeps less is refused. */
    audit: z
      .object({
        minRetentionDays: z.number().int().min(1).max(36_500),
        minRetentionMb: z.number().int().min(1).max(1_000_000),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

/** A server's own change to the guards: more paths hidden, or inherited ones shown (audited). */
export const serverGuardsSchema = z.object({
  hide: z.array(hiddenPathSchema),
  /** Inherited hidden paths this server may see: an explicit exception, shown as such. */
  unhide: z.array(hiddenPathSchema),
  /**
   * Workspace files (workspace-files.ts) this server may write in its writable folders: an
   * explicit exception, shown as such. Without it they are kept read-only there.
   */
  unprotect: z.array(z.enum(WORKSPACE_NAMES)).optional(),
});
