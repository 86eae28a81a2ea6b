/**
 * Secrets for the desktop app: values encrypted with Electron's safeStorage (the macOS Keychain,
 * Windows DPAPI, or the Secret Service / KWallet on Linux) and the ciphertext kept in
 * `$WARDEN_HOME/secrets.safe.json`, mode 0600. Where safeStorage would only obfuscate (Linux
 * without a keyring: the `basic_text` backend), setting a secret is refused rather than stored
 * weakly.
 */
import type { SafeStorage } from 'electron';
import { join } from 'node:path';
import { err, ok } from '../../app/result';
import { fileSecretStore } from '../secrets/file-secret-store';
import { headlessSecretFile } from '../secrets/headless-secret-store';
import { unencryptedSecrets } from '../secrets/unencrypted-secrets';
import {
  APP_SECRETS_FILE,
  HEADLESS_SECRETS_FILE,
  type SecretError,
  type SecretStore,
  tellingElsewhere,
} from '../secrets/secret-store';

export type SafeStorageLike = Pick<
  SafeStorage,
  'isEncryptionAvailable' | 'encryptString' | 'decryptString'
> & { getSelectedStorageBackend?: () => string };

const noKeychain: SecretError = {
  kind: 'unavailable',
  message: 'no OS keychain is available to encrypt secrets',
  remedy:
    'unlock or install a keyring (GNOME Keyring or KWallet on Linux), or use plain values knowingly',
};

/** The desktop store under `wardenHome`, encrypting with `safeStorage`. */
export function safeStorageSecretStore(
  wardenHome: string,
  safeStorage: SafeStorageLike,
): SecretStore {
  const usable = () =>
    safeStorage.isEncryptionAvailable() &&
    safeStorage.getSelectedStorageBackend?.() !== 'basic_text';
  const path = join(wardenHome, APP_SECRETS_FILE);
  const store = fileSecretStore(
    path,
    {
      encode: (value) => {
        if (!usable()) return err(noKeychain);
        return ok(safeStorage.encryptString(value).toString('base64'));
      },
      decode: (stored) => {
        if (!safeStorage.isEncryptionAvailable()) return err(noKeychain);
        try {
          return ok(safeStorage.decryptString(Buffer.from(stored, 'base64')));
        } catch (error) {
          return err({
            kind: 'corrupt',
            message: `a secret in ${path} cannot be decrypted: ${(error as Error).message}`,
            remedy: 'set the secret again (the keychain entry may have been reset)',
          });
        }
      },
    },
    `${path} (encrypted with the OS keychain)`,
  );
  // A value set without the app (`warden serve`, the command line) is in the headless file.
  // The app can move them in (Host status).
  const headless = join(wardenHome, HEADLESS_SECRETS_FILE);
  const told = tellingElsewhere(store, headless, {
    message: `it is in ${headless} (unencrypted), where Warden without the app keeps secrets`,
    remedy: 'move it into the OS keychain from Host status in the app, or set it again in the app',
  });
  return {
    ...told,
    encrypted: true,
    unencrypted: unencryptedSecrets(headless, headlessSecretFile(wardenHome), store),
  };
}
