/** Servers a spec seeds through `warden servers add`, built from the fixtures it is given. */
import { dirname } from 'node:path';

/**
 * The arguments that add the net-tool fixture as `name`: `flags` first, then its own folder
 * read-only (a script must lie in a visible folder) and the command that runs it.
 */
export function netToolServer(name: string, bundle: string, ...flags: string[]): string[] {
  return [name, ...flags, '--ro', dirname(bundle), '--', process.execPath, bundle];
}
