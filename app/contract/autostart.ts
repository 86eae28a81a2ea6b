/**
 * Starting Warden at login: a core that runs before any AI client starts lets every
 * `warden connect` join it (without a Node start-up or a core of its own), so servers answer
 * sooner. The core that serves the control panel owns the entry: the app starts itself hidden in
 * the tray, `warden serve` starts `warden serve --no-open`.
 */
import { z } from 'zod';

export const autostartStateSchema = z.object({
  /** Whether this core can put itself among the system's login items here. */
  available: z.boolean(),
  /** Whether the login item exists and starts this core's command. */
  enabled: z.boolean(),
  /** What starts at login, as a person reads it. */
  target: z.string(),
  /** Where the login item lives: a file's path, or the system setting. */
  where: z.string(),
  /** A login item of the same name that starts something else: its command line. */
  other: z.string().optional(),
  /** Why it is not available, with what to do instead. */
  reason: z.string().optional(),
});
export type AutostartState = z.infer<typeof autostartStateSchema>;

const empty = z.object({}).strict();

/** Spread into the contract's `queries`. */
export const autostartQueries = {
  'autostart.get': { input: empty, output: autostartStateSchema },
} as const;

/** Spread into the contract's `commands`. */
export const autostartCommands = {
  /** Adds (replacing any other Warden entry) or removes the login item. */
  'autostart.set': {
    input: z.object({ enabled: z.boolean() }).strict(),
    output: autostartStateSchema,
  },
} as const;
