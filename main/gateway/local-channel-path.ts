/**
 * Where a running core's local channel is and whether it answers: all that `warden connect` needs
 * before relaying, kept apart from the channel's server so the client side loads nothing else.
 */
import { connect } from 'node:net';
import { join } from 'node:path';

/** Where the socket of the core for `wardenHome` lives. */
export function localChannelPath(wardenHome: string): string {
  return join(wardenHome, 'run', 'core.sock');
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
