import { chmod, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { headlessSecretStore, headlessSecretsWarning } from './headless-secret-store';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-secrets-'));
});

describe('headless secret store', () => {
  it('sets, gets and deletes values in $WARDEN_HOME/secrets.json with mode 0600', async () => {
    const store = headlessSecretStore(home);
    expect(await store.get('github-token')).toEqual({ ok: true, value: undefined });
    expect((await store.set('github-token', 'ghp_secret')).ok).toBe(true);
    expect((await store.set('db/password', 'p"w\n')).ok).toBe(true);
    expect(await store.get('github-token')).toEqual({ ok: true, value: 'ghp_secret' });
    expect(await store.get('db/password')).toEqual({ ok: true, value: 'p"w\n' });
    const file = join(home, 'secrets.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await store.delete('github-token')).toEqual({ ok: true, value: true });
    expect(await store.delete('github-token')).toEqual({ ok: true, value: false });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ 'db/password': 'p"w\n' });
    expect(store.description).toContain('unencrypted');
  });

  it('says so when only the desktop app keeps a value, and what to do', async () => {
    const store = headlessSecretStore(home);
    await writeFile(join(home, 'secrets.safe.json'), JSON.stringify({ 'db/password': 'djEw' }), {
      mode: 0o600,
    });
    expect(await store.get('db/password')).toEqual({
      ok: false,
      error: {
        kind: 'unavailable',
        message:
          'the Warden desktop app keeps it, encrypted with the OS keychain, which only the app can read',
        remedy: "start the Warden app: an AI client's warden connect then joins it",
      },
    });
    // One the app does not keep either is simply not set; one set here is read from here.
    expect(await store.get('other')).toEqual({ ok: true, value: undefined });
    expect((await store.set('db/password', 'here')).ok).toBe(true);
    expect(await store.get('db/password')).toEqual({ ok: true, value: 'here' });
  });

  it('keeps every value when many are set at once', async () => {
    const store = headlessSecretStore(home);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, `v${i}`)));
    for (let i = 0; i < 20; i++)
      expect(await store.get(`k${i}`)).toEqual({ ok: true, value: `v${i}` });
  });

  it.runIf(process.platform !== 'win32')(
    'refuses a file readable or writable by group or others, with the chmod remedy',
    async () => {
      const store = headlessSecretStore(home);
      await store.set('token', 'x');
      const file = join(home, 'secrets.json');
      for (const mode of [0o644, 0o640, 0o604, 0o620, 0o666]) {
        await chmod(file, mode);
        const got = await store.get('token');
        expect(got.ok, mode.toString(8)).toBe(false);
        if (!got.ok) {
          expect(got.error.kind).toBe('insecure-permissions');
          expect(got.error.remedy).toContain(`chmod 600 '${file}'`);
        }
        const set = await store.set('token', 'y');
        expect(set.ok).toBe(false);
      }
      await chmod(file, 0o600);
      expect(await store.get('token')).toEqual({ ok: true, value: 'x' });
    },
  );

  it('reports a corrupt file instead of overwriting it', async () => {
    const file = join(home, 'secrets.json');
    for (const text of ['{not json', '[]', '{"a": 1}', 'null']) {
      await writeFile(file, text, { mode: 0o600 });
      const store = headlessSecretStore(home);
      const got = await store.get('a');
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.kind).toBe('corrupt');
      expect((await store.set('a', 'b')).ok).toBe(false);
      expect(await readFile(file, 'utf8')).toBe(text);
    }
  });

  it('refuses malformed references, including prototype keys', async () => {
    const store = headlessSecretStore(home);
    for (const ref of ['', '__proto__', 'a b', 'x'.repeat(201), 'new\nline']) {
      expect((await store.set(ref, 'v')).ok, JSON.stringify(ref)).toBe(false);
    }
    expect(await store.get('constructor')).toEqual({ ok: true, value: undefined });
  });

  it('says plainly that the values are not encrypted at rest', () => {
    expect(headlessSecretsWarning).toMatch(/not encrypted at rest/);
    expect(headlessSecretsWarning).toContain('secrets.json');
  });
});
