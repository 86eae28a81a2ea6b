/**
 * What every process entry of the `warden` CLI does around its command: Node's compile cache where
 * the runtime has one (turned on again, harmlessly, where the entry already did), a reader that
 * stops early (`warden audit list | head`) taken as no error, and the command's status as the
 * exit code: a failure that carries a remedy (an audit log that cannot be opened) is printed with
 * it as 1, anything else as an internal error with its stack as 70.
 */
import { remedyOf } from '../core/remedied-error';
import { enableCompileCache } from './compile-cache';

/** Runs `command` as this process's command; its status becomes the exit code. */
export function runEntry(command: () => Promise<number>): void {
  enableCompileCache();
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  command().then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      const remedy = remedyOf(error);
      if (remedy !== undefined) {
        process.stderr.write(`warden: ${(error as Error).message} (${remedy})\n`);
        process.exitCode = 1;
        return;
      }
      process.stderr.write(
        `warden: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 70;
    },
  );
}
