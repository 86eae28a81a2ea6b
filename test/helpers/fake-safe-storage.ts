/** A stand-in for Electron's safeStorage: reversible, but never the plain text on disk. */
import type { SafeStorageLike } from '../../main/electron/safe-storage-secret-store';

export function fakeSafeStorage(backend = 'gnome_libsecret', available = true): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (s) =>
      Buffer.from(`enc:${Buffer.from(s).reverse().toString('latin1')}`, 'latin1'),
    decryptString: (b) => {
      const text = b.toString('latin1');
      if (!text.startsWith('enc:')) throw new Error('bad ciphertext');
      return Buffer.from(text.slice(4), 'latin1').reverse().toString();
    },
  };
}
