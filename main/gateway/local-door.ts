/**
 * The local channel's door for `bin/warden`, the shell front of `warden connect`: a named pipe
 * `run/door` that a POSIX shell can write to, so that an AI client's `warden connect` joins a
 * running core without starting Node (whose start-up is most of what a joining launch costs).
 *
 * The shell makes a pair of named pipes `run/d<PID>.i` and `run/d<PID>.o` (it holds `.i` open
 * for writing), writes one line `PID SERVER CLIENT` to the door, and reads one line from `.o`:
 * `ok`, after which `.i` carries the client's messages and `.o` the answers, or anything else,
 * after which it leaves the session to `bin/warden.js` (which says why in full). The folder is
 * the local channel's, which only its owner may enter; the core opens only pipes of its own user
 * found there, without following links, and removes them once open.
 */
import { execFile } from 'node:child_process';
import { constants, closeSync, fstatSync, lstatSync, openSync, readdirSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** One accepted request: the session's input (the client's messages) and output (the answers). */
export interface DoorSession {
  server: string;
  client: string;
  input: Socket;
  output: Socket;
}

export interface LocalDoor {
  path: string;
  close(): void;
}

const REQUEST = /^([1-9][0-9]{0,9}) ([A-Za-z0-9][A-Za-z0-9._-]{0,63}) ([A-Za-z0-9._-]{1,200})$/;
const SESSION_PIPE = /^d[0-9]+\.[io]$/;
const MAX_LINE = 512;

/**
 * Opens the door in `dir` (the local channel's folder, already made 0700). Resolves undefined
 * where named pipes cannot be made (Windows, or no `mkfifo`): `bin/warden` then finds no door and
 * runs `bin/warden.js`, as it does when no core runs.
 */
export async function openLocalDoor(
  dir: string,
  accept: (session: DoorSession) => void,
): Promise<LocalDoor | undefined> {
  if (process.platform === 'win32') return undefined;
  const path = join(dir, 'door');
  // Pipes left by a core or a shell that went away are nobody's now.
  for (const name of readdirSync(dir)) {
    if (name === 'door' || SESSION_PIPE.test(name)) rmSync(join(dir, name), { force: true });
  }
  try {
    await promisify(execFile)('mkfifo', ['-m', '600', path]);
  } catch {
    return undefined;
  }
  // Read and write: the door never reads an end when a shell closes it, and opening it never
  // waits for a writer.
  const fd = openPipe(path, constants.O_RDWR);
  if (fd === undefined) {
    // A door nobody reads would cost every `bin/warden` its 3 s wait.
    rmSync(path, { force: true });
    return undefined;
  }
  const door = new Socket({ fd, readable: true, writable: false });
  door.on('error', () => undefined);
  let pending = '';
  door.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const session = line.length <= MAX_LINE ? openSession(dir, line) : undefined;
      if (session) accept(session);
      nl = pending.indexOf('\n');
    }
    // A line with no end in sight is dropped; the next newline starts afresh.
    if (pending.length > MAX_LINE) pending = '';
  });
  return {
    path,
    close: () => {
      door.destroy();
      rmSync(path, { force: true });
    },
  };
}

/** The session a request line asks for, if its pipes are this user's named pipes. */
function openSession(dir: string, line: string): DoorSession | undefined {
  const m = REQUEST.exec(line);
  if (!m) return undefined;
  const base = join(dir, `d${m[1]}`);
  const paths = [`${base}.i`, `${base}.o`];
  // The input is opened for reading only, so that its end (the shell's writer gone) shows;
  // the output for both, so that opening it never waits for the shell's reader.
  const inFd = openPipe(paths[0]!, constants.O_RDONLY);
  const outFd = inFd === undefined ? undefined : openPipe(paths[1]!, constants.O_RDWR);
  for (const p of paths) rmSync(p, { force: true });
  if (inFd === undefined || outFd === undefined) {
    if (inFd !== undefined) closeSync(inFd);
    return undefined;
  }
  const input = new Socket({ fd: inFd, readable: true, writable: false });
  input.pause();
  const output = new Socket({ fd: outFd, readable: false, writable: true });
  return { server: m[2]!, client: m[3]!, input, output };
}

/** Opens `path` if it is a named pipe of this user (not a link), without blocking. */
function openPipe(path: string, mode: number): number | undefined {
  const uid = process.getuid?.();
  const before = lstatSync(path, { throwIfNoEntry: false });
  if (!before?.isFIFO() || (uid !== undefined && before.uid !== uid)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, mode | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  const after = fstatSync(fd);
  if (!after.isFIFO() || after.ino !== before.ino || after.dev !== before.dev) {
    closeSync(fd);
    return undefined;
  }
  return fd;
}
