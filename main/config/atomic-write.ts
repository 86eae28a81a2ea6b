/**
 * Atomic file replacement: write a temp file beside the target, fsync it, rename over the
 * target, fsync the directory. A crash at any point leaves the old file or the new one, never a
 * torn one.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file operations used, injectable so tests can simulate a crash between steps. */
export interface AtomicWriteOps {
  writeChunk(handle: import('node:fs/promises').FileHandle, data: Buffer): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

export const realAtomicWriteOps: AtomicWriteOps = {
  writeChunk: async (handle, data) => {
    await handle.writeFile(data);
  },
  rename: (from, to) => rename(from, to),
};

/**
 * Replaces `path` with `data` atomically; the file gets mode 0600, or `mode`, set before it takes
 * the target's place (so no one sees the new data under any other mode).
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  ops: AtomicWriteOps = realAtomicWriteOps,
  mode = 0o600,
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await ops.writeChunk(handle, Buffer.from(data, 'utf8'));
    if (mode !== 0o600) await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await ops.rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Some platforms refuse to fsync a directory; that only
  // weakens durability, never atomicity, so it is tolerated.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* directory fsync unsupported here */
  }
}
