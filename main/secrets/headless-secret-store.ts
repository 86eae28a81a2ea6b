/**
 * Secrets for headless mode (`warden serve`, `warden connect` without the desktop app): a file
 * `$WARDEN_HOME/secrets.json`, mode 0600, holding the values in plain text. It is protected only
 * by file permissions, which the store checks on every read; the warning below says so wherever
 * secrets are set in this mode.
 */
import { join } from 'node:path';
import { ok } from '../../app/result';
import { fileSecretStore } from './file-secret-store';
import type { SecretStore } from './secret-store';

/** Shown wherever a secret is set or listed in headless mode. */
export const headlessSecretsWarning =
  'Secrets are stored unencrypted in $WARDEN_HOME/secrets.json (readable only by you, mode 0600). ' +
  'They are not encrypted at rest: anyone who can read your files or backups can read them. ' +
  'Use the desktop app to keep them in the OS keychain.';

/** The headless store under `wardenHome`. */
export function headlessSecretStore(wardenHome: string): SecretStore {
  const path = join(wardenHome, 'secrets.json');
  return fileSecretStore(
    path,
    { encode: (v) => ok(v), decode: (v) => ok(v) },
    `${path} (unencrypted, mode 0600)`,
  );
}
