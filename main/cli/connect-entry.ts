/**
 * Process entry of `warden connect`, which an AI client waits for at each start: bin/warden.js
 * (and the packaged app's launcher) start it for a command line that begins with `connect`. It
 * turns on the compile cache where the runtime has one, then loads the body (connect-main.ts),
 * built as one file that holds the connect command and everything a session without a running
 * core needs up to the server's launch: Node reads and links one module before that launch rather
 * than a chain of chunks, and with a compile cache does not compile it again. The core that goes
 * on with the session loads after the launch, from the CLI's chunks. Any other command line is the
 * whole CLI's to answer.
 */
import { enableCompileCache } from './compile-cache';
import { isPlainConnect } from './connect-args';

enableCompileCache();
const argv = process.argv.slice(2);
if (isPlainConnect(argv)) (await import('./connect-main')).runConnectEntry(argv.slice(1));
else await import('./warden');
