/**
 * Where a running core's local channel is and whether it answers: all that `warden connect` needs
 * before relaying, kept apart from the channel's server so the client side loads nothing else.
 */
import { lstatSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';

/** Where the socket of the core for `wardenHome` lives. */
export function localChannelPath(wardenHome: string): string {
  return join(wardenHome, 'run', 'core.sock');
}

/**
 * Why the socket at `path` (the local or the control channel) cannot be trusted to be this user's
 * core, if it cannot: its folder or the socket belongs to someone else, or others may enter the
 * folder (and so could have put their own socket there, to read what is sent to it and answer in
 * the core's place). Undefined when it can, or when nothing is there. Synchronous: two lstat calls
 * on the path of every `warden connect`.
 */
export function untrustedChannel(path: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const folder = dirname(path);
  let folderMode = 0;
  for (const p of [folder, path]) {
    const info = lstatSync(p, { throwIfNoEntry: false });
    if (!info) return undefined;
    if (info.uid !== uid) return `${p} belongs to another user (uid ${info.uid})`;
    if (p === folder) folderMode = info.mode & 0o777;
  }
  if (folderMode & 0o077) return `other users may enter ${folder} (mode ${folderMode.toString(8)})`;
  return undefined;
}

/** True when a core answers on `path`. */
export function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
