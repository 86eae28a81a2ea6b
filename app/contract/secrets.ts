/**
 * Where this core keeps secret values, and, in the desktop app, the values that Warden without
 * the app (`warden serve`, the command line while the app was closed) kept unencrypted in its
 * own file: the app never reads that file, so the servers that need them fail to start in the
 * app until they are moved into the OS keychain. Names only: a value never crosses the contract.
 */
import { z } from 'zod';

/** The names the headless file holds (never a value), as the app's keychain stands to them. */
export const unencryptedNamesSchema = z.object({
  /** Not in the keychain, or there with the same value. */
  names: z.array(z.string()),
  /** In the keychain with another value, which the app uses. */
  differing: z.array(z.string()),
});
export type UnencryptedNames = z.infer<typeof unencryptedNamesSchema>;

export const secretsStatusSchema = z.object({
  /** Where and how this core keeps values, as a person reads it. */
  store: z.string(),
  /**
   * Whether they are encrypted at rest: in the app's OS keychain. Without the app (`warden
   * serve`), they are in a file only the user can read, unencrypted.
   */
  encrypted: z.boolean(),
  /** The app only, while it holds any: the file Warden without the app keeps values in. */
  unencrypted: unencryptedNamesSchema.extend({ file: z.string() }).optional(),
});
export type SecretsStatus = z.infer<typeof secretsStatusSchema>;

export const secretsMovedSchema = z.object({
  moved: z.array(z.string()),
  /** Left in the file (`keep`): the keychain holds another value, which the app uses. */
  kept: z.array(z.string()),
});
export type SecretsMoved = z.infer<typeof secretsMovedSchema>;

const empty = z.object({}).strict();

/** Spread into the contract's `queries`. */
export const secretsQueries = {
  'secrets.status': { input: empty, output: secretsStatusSchema },
} as const;

/** Spread into the contract's `commands`. */
export const secretsCommands = {
  /**
   * Moves the unencrypted values into the OS keychain (the desktop app only). A differing name's
   * file copy stays (`keep`), goes (`app`) or replaces the keychain's value (`file`).
   */
  'secrets.moveIn': {
    input: z.object({ differing: z.enum(['keep', 'app', 'file']) }).strict(),
    output: secretsMovedSchema,
  },
} as const;
