/**
 * Process entry of `warden connect`, which an AI client waits for at each start: bin/warden.js
 * (and the packaged app's launcher) start it for a command line that begins with `connect`. It is
 * built as one small file holding the connect command, which is all that joining a running core
 * needs; runEntry checks the state folder, then turns on the compile cache where the runtime has
 * one, before anything bigger loads (the whole CLI's entry does the same for any other command).
 * Without a running core, the command loads the early launch (main/core/early-launch.ts), built
 * as one file too: Node reads and links one module before the server's launch rather than a chain
 * of chunks, and with a compile cache does not compile it again. The core that goes on with the
 * session loads after the launch, from the CLI's chunks. Any other command line is the whole
 * CLI's to answer. Where the shell front moved NODE_EXTRA_CA_CERTS aside (Node reads it at every
 * start-up), it is put back first, for the processes this one starts.
 */
import { restoreExtraCa } from '../egress/extra-ca';
import { isPlainConnect, runConnect } from './connect-args';
import { runEntry } from './entry';

restoreExtraCa();
const argv = process.argv.slice(2);
if (isPlainConnect(argv)) runEntry(() => runConnect(argv.slice(1)));
else await import('./warden');
