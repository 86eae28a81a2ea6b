/**
 * Whether `warden ARGV` is a plain `warden connect`: the command every AI client starts, on every
 * start. Such a command line goes straight to the connect command, without loading the table of
 * every command (help texts, flags); anything else (help, an unknown flag, a missing value) goes
 * through the full command line, which answers it as for any command.
 */
import { processIo } from './process-io';

/** The flags of `warden connect`, all of which take a value. */
export const CONNECT_FLAGS: readonly string[] = ['--client', '--max-message-bytes'];

/** True when the full command line would pass `argv` to the connect command unchanged. */
export function isPlainConnect(argv: readonly string[]): boolean {
  if (argv[0] !== 'connect') return false;
  for (let i = 1; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith('-')) continue;
    const eq = token.indexOf('=');
    if (!CONNECT_FLAGS.includes(eq > 0 ? token.slice(0, eq) : token)) return false;
    if (eq < 0) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return false;
    }
  }
  return true;
}

/** `warden connect ARGS` on this process's streams; it never asks. */
export async function runConnect(args: string[]): Promise<number> {
  const { runConnectCommand } = await import('../gateway/connect-command');
  // stdin is first touched once the core has the session's first line.
  return runConnectCommand(args, processIo({ asks: false }));
}
