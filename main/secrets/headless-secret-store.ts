/**
 * Secrets for headless mode (`warden serve`, `warden connect` without the desktop app): a file
 * `$WARDEN_HOME/secrets.json`, mode 0600, holding the values in plain text. It is protected only
 * by file permissions, which the store checks on every read; the warning below says so wherever
 * secrets are set in this mode. A value it lacks that the desktop app keeps (encrypted with the
 * OS keychain, which only the app can use) is reported as such, with what to do.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { err, ok } from '../../app/result';
import { fileSecretStore } from './file-secret-store';
import { APP_SECRETS_FILE, type SecretStore } from './secret-store';

/** Shown wherever a secret is set or listed in headless mode. */
export const headlessSecretsWarning =
  'Secrets are stored unencrypted in $WARDEN_HOME/secrets.json (readable only by you, mode 0600). ' +
  'They are not encrypted at rest: anyone who can read your files or backups can read them. ' +
  'Use the desktop app to keep them in the OS keychain.';

/** The headless store under `wardenHome`. */
export function headlessSecretStore(wardenHome: string): SecretStore {
  const path = join(wardenHome, 'secrets.json');
  const store = fileSecretStore(
    path,
    { encode: (v) => ok(v), decode: (v) => ok(v) },
    `${path} (unencrypted, mode 0600)`,
  );
  return {
    ...store,
    get: async (ref) => {
      const got = await store.get(ref);
      if (!got.ok || got.value !== undefined || !(await keptByApp(wardenHome, ref))) return got;
      return err({
        kind: 'unavailable',
        message:
          'the Warden desktop app keeps it, encrypted with the OS keychain, which only the app can read',
        remedy: "start the Warden app: an AI client's warden connect then joins it",
      });
    },
  };
}

/** Whether the desktop app's store names `ref` (its values are not read: only the app can). */
async function keptByApp(wardenHome: string, ref: string): Promise<boolean> {
  try {
    const names: unknown = JSON.parse(await readFile(join(wardenHome, APP_SECRETS_FILE), 'utf8'));
    return typeof names === 'object' && names !== null && Object.hasOwn(names, ref);
  } catch {
    return false;
  }
}
