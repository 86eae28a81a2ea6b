/**
 * Process entry of the `warden` CLI. Kept tiny: it turns on Node's compile cache where the
 * runtime has one, then loads the command line, which loads only the command being run. A plain
 * `warden connect`, which an AI client waits for at each start, loads only the connect command.
 */
import { enableCompileCache } from './compile-cache';
import { isPlainConnect } from './connect-args';
import { processIo } from './process-io';

enableCompileCache();

// A reader that stops early (`warden audit list | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const argv = process.argv.slice(2);
const run: Promise<number> = isPlainConnect(argv)
  ? import('../gateway/connect-command').then(({ runConnectCommand }) =>
      // It never asks; stdin is first touched once the core has the session's first line.
      runConnectCommand(argv.slice(1), processIo({ asks: false })),
    )
  : import('./cli').then(({ runCli }) => runCli(argv, processIo()));

run.then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(
      `warden: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 70;
  },
);
