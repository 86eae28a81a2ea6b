/**
 * Moving the values Warden without the app kept in the headless file (`warden serve`, the command
 * line with the app closed) into the desktop app's store, encrypted with the OS keychain: the app
 * never reads that file, and the values sit in it in plain text.
 */
import { err, ok, type Result } from '../../app/result';
import type { FileSecretStore } from './file-secret-store';
import type { SecretError, SecretStore, UnencryptedSecrets } from './secret-store';

interface Entry {
  ref: string;
  value: string;
  /** The app's store's value under the same name, if any. */
  there: string | undefined;
}

/** The values of `file` (the headless file at `path`) as the app's store `into` can take them. */
export function unencryptedSecrets(
  path: string,
  file: FileSecretStore,
  into: SecretStore,
): UnencryptedSecrets {
  const entries = async (): Promise<Result<Entry[], SecretError>> => {
    const names = await file.names();
    if (!names.ok) return names;
    const out: Entry[] = [];
    for (const ref of names.value) {
      const value = await file.get(ref);
      if (!value.ok) return value;
      if (value.value === undefined) continue; // removed meanwhile
      const there = await into.get(ref);
      if (!there.ok) return there;
      out.push({ ref, value: value.value, there: there.value });
    }
    return ok(out);
  };
  const differs = (e: Entry) => e.there !== undefined && e.there !== e.value;

  return {
    file: path,
    list: async () => {
      const all = await entries();
      if (!all.ok) return all;
      return ok({
        names: all.value.filter((e) => !differs(e)).map((e) => e.ref),
        differing: all.value.filter(differs).map((e) => e.ref),
      });
    },
    moveIn: async (differing) => {
      const all = await entries();
      if (!all.ok) return all;
      const moved: string[] = [];
      const kept: string[] = [];
      for (const e of all.value) {
        if (differs(e) && differing === 'keep') {
          kept.push(e.ref);
          continue;
        }
        // Into the keychain first, out of the file after: a failure between leaves two copies,
        // never none.
        if (e.there === undefined || (differs(e) && differing === 'file')) {
          const set = await into.set(e.ref, e.value);
          if (!set.ok) return err(partly(set.error, moved.length));
        }
        // Set again in the file since it was read: that newer value stays (and shows next time).
        const removed = await file.deleteIfStill(e.ref, e.value);
        if (!removed.ok) return err(partly(removed.error, moved.length));
        if (removed.value) moved.push(e.ref);
      }
      return ok({ moved, kept });
    },
  };
}

/** `error`, saying that `count` values had moved before it. */
function partly(error: SecretError, count: number): SecretError {
  if (count === 0) return error;
  return { ...error, message: `${error.message} (${count} moved before that)` };
}
