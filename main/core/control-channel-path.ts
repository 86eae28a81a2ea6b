import { join } from 'node:path';

/** Where the control socket of `wardenHome` lives (control-channel.ts listens on it). */
export function controlChannelPath(wardenHome: string): string {
  return join(wardenHome, 'run', 'control.sock');
}
