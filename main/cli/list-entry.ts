/**
 * Process entry of `warden servers list`: bin/warden.js starts it for a command line that begins
 * with `servers list`. With no core running (no control socket in the state folder) it lists the
 * servers from config.json and the host facts (servers-list.ts) without loading the table of
 * every command or Node's networking; in every other case (a core to ask, a flag other than
 * `--json`, facts that do not show a usable sandbox) the whole CLI answers, as for any command.
 */
import { lstatSync } from 'node:fs';
import { resolveWardenHome } from '../config/warden-home';
import { controlChannelPath } from '../core/control-channel-path';
import { runEntry } from './entry';
import { processIo } from './process-io';
import { listWithoutCore } from './servers-list';

const argv = process.argv.slice(2);
runEntry(async () => {
  const io = processIo();
  if (argv[0] === 'servers' && argv[1] === 'list') {
    const home = resolveWardenHome();
    if (!lstatSync(controlChannelPath(home), { throwIfNoEntry: false })) {
      const listed = await listWithoutCore(argv.slice(2), io, home);
      if (listed !== undefined) return listed;
    }
  }
  const { runCli } = await import('./cli');
  return runCli(argv, io);
});
