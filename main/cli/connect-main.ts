/** The body of `warden connect`'s entry (connect-entry.ts), built as one file. */
import { runConnect, runEntry } from './entry';

/** Runs `warden connect ARGS` as this process's command. */
export function runConnectEntry(args: string[]): void {
  runEntry(() => runConnect(args));
}
