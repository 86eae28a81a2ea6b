/**
 * Whether the state folder, and the config.json in it, are this user's alone. What they hold
 * decides which commands run as this user and how they are sandboxed: a folder that another user
 * owns or may write (a WARDEN_HOME made by someone else in /tmp, say) would let them run their
 * commands as this user. So the folder must be a folder, not a symlink, owned by this user (by
 * root when Warden runs as root) and not writable by group or others; config.json, where there is
 * one, a regular file owned by this user and not writable by group or others. Otherwise it is
 * refused, never worked around. A folder that does not exist yet passes: Warden makes it, 0700.
 * One that passes but that group or others may still read or enter is narrowed to 0700: what it
 * holds (tool arguments in the audit log, tokens, secrets) is the user's alone.
 * Windows has no POSIX modes: nothing is checked there, as for the local channel
 * (local-channel-path.ts). A symlinked state folder is refused rather than followed: the roots
 * guard and the sandbox's protected paths name the state folder by its path as given.
 */
import {
  type Stats,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
} from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** A state folder or config.json that Warden refuses, with what is wrong and what to do. */
export interface StateFolderProblem {
  kind: 'state-folder-untrusted';
  fault: 'symlink' | 'not-a-folder' | 'not-a-file' | 'other-owner' | 'writable' | 'unexamined';
  /** The folder or file at fault. */
  path: string;
  message: string;
  remedy: string;
}

/** A refused state folder or config.json, thrown where a value cannot be returned. */
export class StateFolderRefused extends Error {
  readonly kind = 'state-folder-untrusted';
  readonly path: string;
  readonly remedy: string;

  constructor(readonly problem: StateFolderProblem) {
    super(problem.message);
    this.name = 'StateFolderRefused';
    this.path = problem.path;
    this.remedy = problem.remedy;
  }
}

const OWN_FOLDER = 'set WARDEN_HOME to a folder of your own (one that does not exist is made)';
const EMPTY = 'Warden then starts with an empty config';

type Fault = StateFolderProblem['fault'];
type Refuse = (fault: Fault, what: string, remedy: string) => StateFolderProblem;

/** `refuse` for `path` (named `name` in the message), or undefined where there are no modes. */
function refuserOf(path: string, name: string): { uid: number; refuse: Refuse } | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const refuse: Refuse = (fault, what, remedy) => {
    const message = `refusing ${name}: ${what}`;
    return { kind: 'state-folder-untrusted', fault, path, message, remedy };
  };
  return { uid, refuse };
}

const otherOwner = (info: Stats, uid: number) =>
  `it belongs to another user (uid ${info.uid}; Warden runs as uid ${uid})`;
const writable = (info: Stats) =>
  `group or others may write it (mode ${(info.mode & 0o777).toString(8)})`;

/** Why the state folder `path`, as lstat found it, cannot be trusted, if it cannot. */
function folderProblem(path: string, info: Stats): StateFolderProblem | undefined {
  const r = refuserOf(path, `the state folder ${path}`);
  if (!r) return undefined;
  if (info.isSymbolicLink())
    return r.refuse(
      'symlink',
      'it is a symlink',
      `point WARDEN_HOME at the folder it links to, if only you can write that, or ${OWN_FOLDER}`,
    );
  if (!info.isDirectory()) return r.refuse('not-a-folder', 'it is not a folder', OWN_FOLDER);
  if (info.uid !== r.uid)
    return r.refuse('other-owner', otherOwner(info, r.uid), `do not use it: ${OWN_FOLDER}`);
  if (info.mode & 0o022)
    return r.refuse(
      'writable',
      writable(info),
      `make it yours alone: chmod go-w ${path}, then check that its config.json holds only ` +
        `servers you added; or ${OWN_FOLDER}`,
    );
  return undefined;
}

/** Why config.json at `path`, as lstat or the fstat of its descriptor found it, is not trusted. */
function configFileProblem(path: string, info: Stats): StateFolderProblem | undefined {
  const r = refuserOf(path, path);
  if (!r) return undefined;
  if (info.isSymbolicLink()) return configLink(path);
  if (!info.isFile())
    return r.refuse('not-a-file', 'it is not a regular file', `move it away (${EMPTY})`);
  if (info.uid !== r.uid)
    return r.refuse(
      'other-owner',
      otherOwner(info, r.uid),
      `move it away, and check what it holds before you use any of it (${EMPTY})`,
    );
  if (info.mode & 0o022)
    return r.refuse(
      'writable',
      writable(info),
      `make it yours alone: chmod go-w ${path}, then check that it holds only servers you added`,
    );
  return undefined;
}

function configLink(path: string): StateFolderProblem | undefined {
  return refuserOf(path, path)?.refuse(
    'not-a-file',
    'it is a symlink',
    `replace it with the file it links to, if only you can write that, or move it away (${EMPTY})`,
  );
}

/** What entering the state folder found: a refusal, or the note for the user, if any. */
export type StateFolderEntry =
  | { problem: StateFolderProblem; note?: undefined }
  | { problem?: undefined; note: string | undefined };

/**
 * What every `warden` process does before anything else (runEntry), `warden connect` included:
 * the problem, if the state folder `wardenHome` or its config.json cannot be trusted (none when
 * there is no folder yet); else the folder made the user's alone (keepFolderPrivate) and the note
 * that says so. Synchronous, two lstat calls.
 */
export function enterStateFolder(wardenHome: string): StateFolderEntry {
  if (process.getuid === undefined) return { note: undefined };
  // Resolved: a trailing slash or `/.` would make lstat follow a symlink.
  const folder = resolve(wardenHome);
  const info = examined(folder, `the state folder ${folder}`);
  if (!isStats(info)) return info ? { problem: info } : { note: undefined };
  const config = join(folder, 'config.json');
  const file = examined(config, config);
  const problem =
    folderProblem(folder, info) ?? (isStats(file) ? configFileProblem(config, file) : file);
  return problem ? { problem } : { note: keepFolderPrivate(folder, info) };
}

const isStats = (x: Stats | StateFolderProblem | undefined): x is Stats =>
  x !== undefined && !('kind' in x);

/** lstat of `path`; undefined when there is nothing; a refusal when it cannot be looked at. */
function examined(path: string, name: string): Stats | StateFolderProblem | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return refuserOf(path, name)?.refuse(
      'unexamined',
      `it cannot be looked at (${code})`,
      OWN_FOLDER,
    );
  }
}

const FOLDER_FLAGS =
  constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Takes group and others' access away from the trusted state folder `folder` (as lstat found it
 * in `info`) where they still have some (a folder made by hand, or by mkdir under umask 022): what
 * it holds, the audit log among it, is the user's alone. Through a descriptor opened without
 * following a link, checked to be the folder examined. Answers the note for the user where it
 * changed the mode or could not; once, since the next look finds the folder 0700.
 */
function keepFolderPrivate(folder: string, info: Stats): string | undefined {
  if (process.platform === 'win32' || (info.mode & 0o077) === 0) return undefined;
  const was = (info.mode & 0o777).toString(8).padStart(4, '0');
  const mode = info.mode & 0o7777 & ~0o077;
  try {
    const fd = openSync(folder, FOLDER_FLAGS);
    try {
      const now = fstatSync(fd);
      if (now.dev !== info.dev || now.ino !== info.ino) return undefined;
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return `the state folder ${folder} is mode ${was}: other users may read what it holds, and Warden could not change that (${code}); run chmod 700 ${folder}`;
  }
  return `note: the state folder ${folder} was mode ${was}, open to other users; it is ${(mode & 0o777).toString(8).padStart(4, '0')} now: what it holds (the audit log among it) is yours alone`;
}

/**
 * Makes the state folder (mode 0700) when there is none; throws StateFolderRefused when it
 * cannot be trusted; takes group and others' access away from one it trusts (the note goes to
 * `log`). One lstat where it exists; where it does not, one more after making it, since mkdir
 * takes a folder someone else made meanwhile as its own.
 */
export async function openStateFolder(
  wardenHome: string,
  log: (line: string) => void = (line) => console.error(`warden: ${line}`),
): Promise<void> {
  const folder = resolve(wardenHome);
  let info = await lstat(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    info = await lstat(folder);
  }
  const problem = folderProblem(folder, info);
  if (problem) throw new StateFolderRefused(problem);
  const note = keepFolderPrivate(folder, info);
  if (note) log(note);
}

/** Opening neither follows a symlink nor waits for a FIFO's writer. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The text of the config.json at `path`, undefined when there is none; throws StateFolderRefused
 * for one that cannot be trusted. Checked on the open descriptor: what is read is what was checked.
 */
export async function readConfigJson(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const link = code === 'ELOOP' ? configLink(path) : undefined;
    throw link ? new StateFolderRefused(link) : error;
  }
  try {
    const problem = configFileProblem(path, await handle.stat());
    if (problem) throw new StateFolderRefused(problem);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
