/**
 * What every process entry of the `warden` CLI does around its command: first the state folder's
 * check (state-folder-trust.ts), which refuses, with exit status 1, a folder or config.json that
 * may not be this user's alone before anything reads or writes there, the compile cache and every
 * command (`warden connect` and its early launch, `serve`, …) included; then Node's compile cache
 * where the runtime has one, a reader that stops early (`warden audit list | head`) taken as no
 * error, and the command's status as the exit code: a failure that carries a remedy (an audit log
 * that cannot be opened) is printed with it as 1, anything else as an internal error with its
 * stack as 70.
 */
import { enterStateFolder } from '../config/state-folder-trust';
import { resolveWardenHome } from '../config/warden-home';
import { remedyOf } from '../core/remedied-error';
import { enableCompileCache } from './compile-cache';

/** Runs `command` as this process's command; its status becomes the exit code. */
export function runEntry(command: () => Promise<number>): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  const entered = enterStateFolder(resolveWardenHome());
  if (entered.problem) {
    process.stderr.write(`warden: ${entered.problem.message} (${entered.problem.remedy})\n`);
    process.exitCode = 1;
    return;
  }
  if (entered.note) process.stderr.write(`warden: ${entered.note}\n`);
  enableCompileCache();
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
