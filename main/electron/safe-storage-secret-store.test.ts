import { writeFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeSafeStorage } from '../../test/helpers/fake-safe-storage';
import { safeStorageSecretStore } from './safe-storage-secret-store';

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
        remedy:
          'move it into the OS keychain from Host status in the app, or set it again in the app',
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

  describe('the values Warden without the app kept unencrypted', () => {
    async function withHeadless(values: Record<string, string>) {
      const home = await mkdtemp(join(tmpdir(), 'warden-safe-'));
      const headless = join(home, 'secrets.json');
      await writeFile(headless, JSON.stringify(values), { mode: 0o600 });
      return {
        home,
        headless,
        read: async (): Promise<unknown> => JSON.parse(await readFile(headless, 'utf8')),
      };
    }

    it('names them, moves them into the keychain and out of the file', async () => {
      const { home, headless, read } = await withHeadless({
        'github/GITHUB_TOKEN': 'ghp_plain',
        'telemetry/X-Key': 'k-1',
      });
      const store = safeStorageSecretStore(home, fakeSafeStorage());
      expect(store.unencrypted?.file).toBe(headless);
      expect(await store.unencrypted?.list()).toEqual({
        ok: true,
        value: { names: ['github/GITHUB_TOKEN', 'telemetry/X-Key'], differing: [] },
      });

      expect(await store.unencrypted?.moveIn('keep')).toEqual({
        ok: true,
        value: { moved: ['github/GITHUB_TOKEN', 'telemetry/X-Key'], kept: [] },
      });
      expect(await read()).toEqual({});
      expect(await store.get('github/GITHUB_TOKEN')).toEqual({ ok: true, value: 'ghp_plain' });
      expect(await store.get('telemetry/X-Key')).toEqual({ ok: true, value: 'k-1' });
      const onDisk = await readFile(join(home, 'secrets.safe.json'), 'utf8');
      expect(onDisk).not.toContain('ghp_plain');
      expect(await store.unencrypted?.list()).toEqual({
        ok: true,
        value: { names: [], differing: [] },
      });
    });

    it('a name the keychain holds with another value: kept, or the app’s or the file’s value taken', async () => {
      const cases = [
        ['keep', { moved: ['b', 'c'], kept: ['a'] }, { a: 'from-file' }, 'from-app'],
        ['app', { moved: ['a', 'b', 'c'], kept: [] }, {}, 'from-app'],
        ['file', { moved: ['a', 'b', 'c'], kept: [] }, {}, 'from-file'],
      ] as const;
      for (const [differing, result, left, a] of cases) {
        const { home, read } = await withHeadless({ a: 'from-file', b: 'same', c: 'only-file' });
        const store = safeStorageSecretStore(home, fakeSafeStorage());
        await store.set('a', 'from-app');
        await store.set('b', 'same');
        expect(await store.unencrypted?.list()).toEqual({
          ok: true,
          value: { names: ['b', 'c'], differing: ['a'] },
        });
        expect(await store.unencrypted?.moveIn(differing)).toEqual({ ok: true, value: result });
        expect(await read()).toEqual(left);
        expect(await store.get('a')).toEqual({ ok: true, value: a });
        expect(await store.get('b')).toEqual({ ok: true, value: 'same' });
        expect(await store.get('c')).toEqual({ ok: true, value: 'only-file' });
      }
    });

    it('a value set again in the file while it moves stays there: only what was moved leaves', async () => {
      const { home, headless, read } = await withHeadless({ token: 'old', other: 'o' });
      // Another Warden process (a headless core, the command line) sets the name again between
      // the move's read of the file and its removal from it: here, as the keychain encrypts.
      const keychain = fakeSafeStorage();
      const store = safeStorageSecretStore(home, {
        ...keychain,
        encryptString: (value) => {
          if (value === 'old') writeFileSync(headless, '{"token":"newer","other":"o"}');
          return keychain.encryptString(value);
        },
      });
      expect(await store.unencrypted?.moveIn('keep')).toEqual({
        ok: true,
        value: { moved: ['other'], kept: [] },
      });
      expect(await read()).toEqual({ token: 'newer' });
      expect(await store.unencrypted?.list()).toEqual({
        ok: true,
        value: { names: [], differing: ['token'] },
      });
    });

    it('without a real keychain moves nothing and leaves the file as it was', async () => {
      const { home, read } = await withHeadless({ token: 'plain' });
      const store = safeStorageSecretStore(home, fakeSafeStorage('basic_text'));
      expect(await store.unencrypted?.moveIn('keep')).toMatchObject({
        ok: false,
        error: { kind: 'unavailable' },
      });
      expect(await read()).toEqual({ token: 'plain' });
    });

    it('refuses a file others can read, as every read of it does', async () => {
      const { home, headless, read } = await withHeadless({ token: 'plain' });
      await chmod(headless, 0o644);
      const store = safeStorageSecretStore(home, fakeSafeStorage());
      expect(await store.unencrypted?.list()).toMatchObject({
        ok: false,
        error: { kind: 'insecure-permissions' },
      });
      expect(await store.unencrypted?.moveIn('file')).toMatchObject({ ok: false });
      expect(await read()).toEqual({ token: 'plain' });
    });
  });
});
