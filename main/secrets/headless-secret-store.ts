/**
 * Secrets for headless mode (`warden serve`, `warden connect` without the desktop app): a file
 * `$WARDEN_HOME/secrets.json`, mode 0600, holding the values in plain text. It is protected only
 * by file permissions, which the store checks on every read; the warning below says so wherever
 * secrets are set in this mode. A value it lacks that the desktop app keeps (encrypted with the
 * OS keychain, which only the app can use) is reported as such, with what to do.
 */
import { join } from 'node:path';
import { ok } from '../../app/result';
import { type FileSecretStore, fileSecretStore } from './file-secret-store';
import {
  APP_SECRETS_FILE,
  HEADLESS_SECRETS_FILE,
  type SecretStore,
  tellingElsewhere,
} from './secret-store';

/** Shown wherever a secret is set or listed in headless mode. */
export const headlessSecretsWarning =
  'Secrets are stored unencrypted in $WARDEN_HOME/secrets.json (readable only by you, mode 0600). ' +
  'They are not encrypted at rest: anyone who can read your files or backups can read them. ' +
  'Use the desktop app to keep them in the OS keychain.';

/** The headless file under `wardenHome` as it is, without a word about the app's store. */
export function headlessSecretFile(wardenHome: string): FileSecretStore {
  const path = join(wardenHome, HEADLESS_SECRETS_FILE);
  return fileSecretStore(
    path,
    { encode: (v) => ok(v), decode: (v) => ok(v) },
    `${path} (unencrypted, mode 0600)`,
  );
}

/** The headless store under `wardenHome`. */
export function headlessSecretStore(wardenHome: string): SecretStore {
  return tellingElsewhere(headlessSecretFile(wardenHome), join(wardenHome, APP_SECRETS_FILE), {
    message:
      'the Warden desktop app keeps it, encrypted with the OS keychain, which only the app can read',
    remedy: "start the Warden app: an AI client's warden connect then joins it",
  });
}
