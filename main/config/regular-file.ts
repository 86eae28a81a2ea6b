/**
 * Reading a file that another program, or a sandboxed server with write access to its folder, may
 * have replaced with something that is not a file: a FIFO would hold the reader until some writer
 * came, and a device such as /dev/zero would fill its memory. The path is opened without blocking
 * and checked on the open descriptor (so a rename in between changes nothing), and only a regular
 * file is read, never more than `maxBytes` of it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { type Result, err, ok } from '../../app/result';

/** Opening never waits for a FIFO's writer, nor makes a terminal this process's own. */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

export interface RegularFileText {
  bytes: Buffer;
  /** The bytes as UTF-8. */
  text: string;
  /** Permission bits, as the open descriptor's. */
  mode: number;
}

/** Why the text was not read. */
export type RegularFileProblem =
  | { kind: 'absent' }
  | { kind: 'not-a-file' }
  | { kind: 'too-large' }
  | { kind: 'unreadable'; code: string };

/** The problem in words after the path, e.g. "is not a regular file". */
export function regularFileProblemText(problem: RegularFileProblem, maxBytes: number): string {
  switch (problem.kind) {
    case 'absent':
      return 'does not exist';
    case 'not-a-file':
      return 'is not a regular file';
    case 'too-large':
      return `is larger than ${sizeText(maxBytes)}`;
    case 'unreadable':
      return `cannot be read (${problem.code})`;
  }
}

function sizeText(bytes: number): string {
  const mb = 1024 * 1024;
  if (bytes >= mb) return `${Math.floor(bytes / mb)} MB`;
  return bytes >= 1024 ? `${Math.floor(bytes / 1024)} KB` : `${bytes} bytes`;
}

function problemOf(error: unknown): RegularFileProblem {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable', code };
}

/** A buffer filled from the start, one read at a time, until end of file or `maxBytes + 1` bytes. */
class Filling {
  buffer: Buffer;
  length = 0;

  constructor(
    size: number,
    private readonly maxBytes: number,
  ) {
    this.buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
  }

  /** Counts one read into `buffer` at `length`; true once there is nothing more to read. */
  took(n: number): boolean {
    if (n === 0) return true;
    this.length += n;
    if (this.length > this.maxBytes) return true;
    if (this.length === this.buffer.length) {
      const grown = Buffer.alloc(Math.min(this.buffer.length * 2, this.maxBytes + 1));
      this.buffer.copy(grown);
      this.buffer = grown;
    }
    return false;
  }

  get room(): number {
    return this.buffer.length - this.length;
  }
}

function textOf(read: Filling, mode: number, maxBytes: number) {
  const bytes = read.buffer.subarray(0, read.length);
  return read.length > maxBytes
    ? err<RegularFileProblem>({ kind: 'too-large' })
    : ok({ bytes, text: bytes.toString('utf8'), mode: mode & 0o7777 });
}

/** The text of the regular file at `path`, if it is one of at most `maxBytes`. */
export async function readRegularFile(
  path: string,
  maxBytes: number,
): Promise<Result<RegularFileText, RegularFileProblem>> {
  let handle;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    return err(problemOf(error));
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return err({ kind: 'not-a-file' });
    if (info.size > maxBytes) return err({ kind: 'too-large' });
    const read = new Filling(info.size, maxBytes);
    while (
      !read.took((await handle.read(read.buffer, read.length, read.room, read.length)).bytesRead)
    );
    return textOf(read, info.mode, maxBytes);
  } catch (error) {
    return err(problemOf(error));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** As readRegularFile, for callers that read synchronously. */
export function readRegularFileSync(
  path: string,
  maxBytes: number,
): Result<RegularFileText, RegularFileProblem> {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    return err(problemOf(error));
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return err({ kind: 'not-a-file' });
    if (info.size > maxBytes) return err({ kind: 'too-large' });
    const read = new Filling(info.size, maxBytes);
    while (!read.took(readSync(fd, read.buffer, read.length, read.room, read.length)));
    return textOf(read, info.mode, maxBytes);
  } catch (error) {
    return err(problemOf(error));
  } finally {
    closeSync(fd);
  }
}
