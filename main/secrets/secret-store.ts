/**
 * Where secret values of `env.set` entries live, by reference. The Electron app keeps them
 * encrypted with the OS keychain (safeStorage); headless mode keeps them in a 0600 file and says
 * so plainly. Failures are values with a kind and a remedy.
 */
import { readFile } from 'node:fs/promises';
import type { SecretsMoved, UnencryptedNames } from '../../app/contract/secrets';
import { type Result, err } from '../../app/result';

/** The desktop app's store under the state folder: values encrypted with the OS keychain. */
export const APP_SECRETS_FILE = 'secrets.safe.json';
/** The headless store under the state folder (`warden serve`, `warden connect` without the app). */
export const HEADLESS_SECRETS_FILE = 'secrets.json';

export interface SecretError {
  kind: 'insecure-permissions' | 'corrupt' | 'unavailable' | 'io';
  message: string;
  remedy: string;
}

export interface SecretStore {
  /** Where and how the values are kept, for `warden doctor` and the settings screen. */
  readonly description: string;
  /** True where the values are encrypted at rest (the OS keychain); absent where they are not. */
  readonly encrypted?: boolean;
  get(ref: string): Promise<Result<string | undefined, SecretError>>;
  set(ref: string, value: string): Promise<Result<void, SecretError>>;
  /** True when a value was removed. */
  delete(ref: string): Promise<Result<boolean, SecretError>>;
  /** The desktop app's store only: the values Warden without the app kept unencrypted. */
  readonly unencrypted?: UnencryptedSecrets;
}

/**
 * The headless file's values, seen from the app's store, which can take them in: the names they
 * are kept under (never a value), and the move.
 */
export interface UnencryptedSecrets {
  readonly file: string;
  list(): Promise<Result<UnencryptedNames, SecretError>>;
  /**
   * Moves each value into the app's store and out of the file. A name the app's store holds
   * with another value is `differing`: its file copy stays (`keep`), goes (`app`: the app's value
   * stays) or replaces the app's value (`file`).
   */
  moveIn(differing: 'keep' | 'app' | 'file'): Promise<Result<SecretsMoved, SecretError>>;
}

/**
 * `store`, reporting a value it lacks that the other store (`file`) names as `elsewhere` says,
 * rather than as not set: the two stores are not shared (only the app can use the OS keychain),
 * and "not set" would send the user to set again a value that is there. Only the names in
 * `file` are read.
 */
export function tellingElsewhere(
  store: SecretStore,
  file: string,
  elsewhere: Pick<SecretError, 'message' | 'remedy'>,
): SecretStore {
  return {
    ...store,
    get: async (ref) => {
      const got = await store.get(ref);
      if (!got.ok || got.value !== undefined || !(await names(file, ref))) return got;
      return err({ kind: 'unavailable', ...elsewhere });
    },
  };
}

/** Whether the secrets file `file` holds a value under `ref`. */
async function names(file: string, ref: string): Promise<boolean> {
  try {
    const all: unknown = JSON.parse(await readFile(file, 'utf8'));
    return typeof all === 'object' && all !== null && Object.hasOwn(all, ref);
  } catch {
    return false;
  }
}
