/**
 * Process entry of `warden servers list`: bin/warden.js starts it for a command line that begins
 * with `servers list`. It lists without loading the table of every command: with no core running
 * (no control socket in the state folder) from config.json and the host facts, without Node's
 * networking; with one, by asking it. In every other case (a flag other than `--json`, facts that
 * do not show a usable sandbox, a socket that is not to be trusted or does not answer, a refusal)
 * the whole CLI answers, as for any command.
 */
import { lstatSync } from 'node:fs';
import { resolveWardenHome } from '../config/warden-home';
import { controlChannelPath } from '../core/control-channel-path';
import { runEntry } from './entry';
import { processIo } from './process-io';
import { listFromCore, listWithoutCore } from './servers-list';

const argv = process.argv.slice(2);
runEntry(async () => {
  const io = processIo();
  if (argv[0] === 'servers' && argv[1] === 'list') {
    const home = resolveWardenHome();
    const args = argv.slice(2);
    let listed: number | undefined;
    if (!lstatSync(controlChannelPath(home), { throwIfNoEntry: false })) {
      listed = await listWithoutCore(args, io, home);
    } else {
      const { askRunningCore } = await import('../core/control-channel');
      listed = await listFromCore(args, io, home, (op, input) => askRunningCore(home, op, input));
    }
    if (listed !== undefined) return listed;
  }
  const { runCli } = await import('./cli');
  return runCli(argv, io);
});
