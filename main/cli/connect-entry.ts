/**
 * Process entry of `warden connect`, which an AI client waits for at each start: bin/warden.js
 * starts it for a command line that begins with `connect`. It is built as one file holding the
 * connect command and everything a session without a running core needs up to the server's
 * launch (main/core/early-launch.ts), so that Node reads and links one module before that launch
 * rather than a chain of a few dozen chunks; the core that goes on with the session loads after
 * the launch, from the CLI's chunks. Any other command line is the whole CLI's to answer.
 */
import { isPlainConnect } from './connect-args';
import { runConnect, runEntry } from './entry';

const argv = process.argv.slice(2);
if (isPlainConnect(argv)) runEntry(() => runConnect(argv.slice(1)));
else await import('./warden');
