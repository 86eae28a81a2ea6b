import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SafeStorageLike, safeStorageSecretStore } from './safe-storage-secret-store';

/** A stand-in keychain: reversible, but never the plain text on disk. */
function fakeSafeStorage(backend = 'gnome_libsecret', available = true): SafeStorageLike {
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

describe('safeStorage secret store', () => {
  it('stores only ciphertext and reads the value back', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-safe-'));
    const store = safeStorageSecretStore(home, fakeSafeStorage());
    expect((await store.set('token', 'hunter2')).ok).toBe(true);
    expect(await store.get('token')).toEqual({ ok: true, value: 'hunter2' });
    const onDisk = await readFile(join(home, 'secrets.safe.json'), 'utf8');
    expect(onDisk).not.toContain('hunter2');
    expect(onDisk).not.toContain('2retnuh');
  });

  it('says where a value set without the app is, and what to do, rather than not set', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-safe-'));
    await writeFile(join(home, 'secrets.json'), JSON.stringify({ token: 'plain' }), {
      mode: 0o600,
    });
    const store = safeStorageSecretStore(home, fakeSafeStorage());
    expect(await store.get('token')).toEqual({
      ok: false,
      error: {
        kind: 'unavailable',
        message: `it is in ${join(home, 'secrets.json')} (unencrypted), where Warden without the app keeps secrets`,
        remedy: 'set it again in the app to keep it in the OS keychain',
      },
    });
    expect(await store.get('other')).toEqual({ ok: true, value: undefined });
    expect((await store.set('token', 'kept')).ok).toBe(true);
    expect(await store.get('token')).toEqual({ ok: true, value: 'kept' });
  });

  it('refuses to store a secret without a real keychain', async () => {
    for (const storage of [fakeSafeStorage('basic_text'), fakeSafeStorage('kwallet5', false)]) {
      const home = await mkdtemp(join(tmpdir(), 'warden-safe-'));
      const set = await safeStorageSecretStore(home, storage).set('token', 'x');
      expect(set).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    }
  });

  it('reports ciphertext it cannot decrypt', async () => {
    const home = await mkdtemp(join(tmpdir(), 'warden-safe-'));
    const good = safeStorageSecretStore(home, fakeSafeStorage());
    await good.set('token', 'x');
    const broken = fakeSafeStorage();
    broken.decryptString = () => {
      throw new Error('key changed');
    };
    const got = await safeStorageSecretStore(home, broken).get('token');
    expect(got).toMatchObject({ ok: false, error: { kind: 'corrupt' } });
  });
});
