/**
 * Process entry of the `warden` CLI. Kept tiny: it loads the command line, which loads only the
 * command being run. A plain `warden connect`, which an AI client waits for at each start, loads
 * only the connect command (bin/warden.js starts it from connect-entry.ts, built as one file).
 */
import { isPlainConnect, runConnect } from './connect-args';
import { runEntry } from './entry';
import { processIo } from './process-io';

const argv = process.argv.slice(2);
runEntry(() =>
  isPlainConnect(argv)
    ? runConnect(argv.slice(1))
    : import('./cli').then(({ runCli }) => runCli(argv, processIo())),
);
