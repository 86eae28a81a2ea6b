/**
 * Where secret values of `env.set` entries live, by reference. The Electron app keeps them
 * encrypted with the OS keychain (safeStorage); headless mode keeps them in a 0600 file and says
 * so plainly. Failures are values with a kind and a remedy.
 */
import type { Result } from '../../app/result';

/** The desktop app's store under the state folder: values encrypted with the OS keychain. */
export const APP_SECRETS_FILE = 'secrets.safe.json';

export interface SecretError {
  kind: 'insecure-permissions' | 'corrupt' | 'unavailable' | 'io';
  message: string;
  remedy: string;
}

export interface SecretStore {
  /** Where and how the values are kept, for `warden doctor` and the settings screen. */
  readonly description: string;
  get(ref: string): Promise<Result<string | undefined, SecretError>>;
  set(ref: string, value: string): Promise<Result<void, SecretError>>;
  /** True when a value was removed. */
  delete(ref: string): Promise<Result<boolean, SecretError>>;
}
