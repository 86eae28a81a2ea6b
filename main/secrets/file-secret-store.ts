/**
 * A secret store backed by one JSON file of `ref → encoded value`, mode 0600, replaced atomically
 * on every change. The codec decides what is written: the plain value (headless mode) or the OS
 * keychain's ciphertext (Electron). A file readable by group or others is refused, not used.
 *
 * Every change reads the whole file, changes one entry and writes it whole, so changes are taken
 * one at a time: within this process by one queue per file, and across this user's Warden
 * processes (the app, `warden serve`, each standalone `warden connect`, the CLI) by a lock file
 * beside it (`<file>.lock`, core-lock.ts's `withLockFile`). Without it, two processes changing
 * different entries at once would each write back what it read, and one change would be lost: a
 * refreshed sign-in, or a secret removed coming back.
 */
import { readFile, stat } from 'node:fs/promises';
import { err, ok, type Result } from '../../app/result';
import { LockFileHeld, withLockFile } from '../core/core-lock';
import { writeFileAtomic } from '../config/atomic-write';
import type { SecretError, SecretStore } from './secret-store';

/** How long a change waits for another process's change to the same file. */
const CHANGE_WAIT_MS = 10_000;

/** The queue of changes to each file in this process, whichever store makes them. */
const queues = new Map<string, Promise<unknown>>();

export interface SecretCodec {
  encode(value: string): Result<string, SecretError>;
  decode(stored: string): Result<string, SecretError>;
}

const REF = /^[A-Za-z0-9._:/-]{1,200}$/;

/** A store in one file, which can also say which names it holds. */
export interface FileSecretStore extends SecretStore {
  names(): Promise<Result<string[], SecretError>>;
  /**
   * Removes `ref` only while it still holds `value`, in one change: a value another process set
   * since it was read stays. True when removed.
   */
  deleteIfStill(ref: string, value: string): Promise<Result<boolean, SecretError>>;
}

/** Opens (lazily) the store at `path`. */
export function fileSecretStore(
  path: string,
  codec: SecretCodec,
  description: string,
): FileSecretStore {
  // Changes are taken one at a time, so that two concurrent sets never lose one another.
  const serialized = <T>(
    work: () => Promise<Result<T, SecretError>>,
  ): Promise<Result<T, SecretError>> => {
    const change = () => changeLocked(path, work);
    const next = (queues.get(path) ?? Promise.resolve()).then(change, change);
    queues.set(
      path,
      next.catch(() => undefined),
    );
    return next;
  };

  const load = async (): Promise<Result<Record<string, string>, SecretError>> => {
    let mode: number;
    try {
      mode = (await stat(path)).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({});
      return err(io(path, error));
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      return err({
        kind: 'insecure-permissions',
        message: `${path} is readable or writable by other users (mode ${(mode & 0o777).toString(8)})`,
        remedy: `run: chmod 600 '${path}' — and consider the secrets in it exposed`,
      });
    }
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
      const entries = Object.entries(parsed as Record<string, unknown>);
      if (entries.some(([, v]) => typeof v !== 'string')) throw new Error();
      return ok(Object.fromEntries(entries) as Record<string, string>);
    } catch {
      return err({
        kind: 'corrupt',
        message: `${path} is not a valid secrets file`,
        remedy: `move ${path} aside and set the secrets again`,
      });
    }
  };

  const checkRef = (ref: string): Result<void, SecretError> =>
    REF.test(ref) && ref !== '__proto__'
      ? ok(undefined)
      : err({
          kind: 'io',
          message: `invalid secret reference ${JSON.stringify(ref)}`,
          remedy: 'use letters, digits and . _ : / -',
        });

  /** Removes `ref` if its stored value passes `still`, read and written under one lock. */
  const remove = (
    ref: string,
    still: (stored: string) => boolean,
  ): Promise<Result<boolean, SecretError>> =>
    serialized(async () => {
      const valid = checkRef(ref);
      if (!valid.ok) return valid;
      const all = await load();
      if (!all.ok) return all;
      if (!Object.hasOwn(all.value, ref) || !still(all.value[ref]!)) return ok(false);
      const { [ref]: _removed, ...rest } = all.value;
      const saved = await save(path, rest);
      return saved.ok ? ok(true) : saved;
    });

  return {
    description,
    names: async () => {
      const all = await load();
      return all.ok ? ok(Object.keys(all.value)) : all;
    },
    get: async (ref) => {
      const valid = checkRef(ref);
      if (!valid.ok) return valid;
      const all = await load();
      if (!all.ok) return all;
      const stored = Object.hasOwn(all.value, ref) ? all.value[ref] : undefined;
      return stored === undefined ? ok(undefined) : codec.decode(stored);
    },
    set: (ref, value) =>
      serialized(async () => {
        const valid = checkRef(ref);
        if (!valid.ok) return valid;
        const encoded = codec.encode(value);
        if (!encoded.ok) return encoded;
        const all = await load();
        if (!all.ok) return all;
        return save(path, { ...all.value, [ref]: encoded.value });
      }),
    delete: (ref) => remove(ref, () => true),
    deleteIfStill: (ref, value) =>
      remove(ref, (stored) => {
        const decoded = codec.decode(stored);
        return decoded.ok && decoded.value === value;
      }),
  };
}

/** Runs `work` holding the file's lock, which other Warden processes take to change it too. */
async function changeLocked<T>(
  path: string,
  work: () => Promise<Result<T, SecretError>>,
): Promise<Result<T, SecretError>> {
  try {
    return await withLockFile(path, `a change to ${path}`, work, CHANGE_WAIT_MS);
  } catch (error) {
    if (error instanceof LockFileHeld) {
      return err({ kind: 'io', message: error.message, remedy: 'retry once that process is done' });
    }
    return err(io(path, error));
  }
}

async function save(
  path: string,
  values: Record<string, string>,
): Promise<Result<void, SecretError>> {
  try {
    await writeFileAtomic(path, `${JSON.stringify(values, null, 2)}\n`);
    return ok(undefined);
  } catch (error) {
    return err(io(path, error));
  }
}

function io(path: string, error: unknown): SecretError {
  return {
    kind: 'io',
    message: `cannot use ${path}: ${(error as Error).message}`,
    remedy: 'check that the Warden state directory exists and belongs to you',
  };
}
