/**
 * `warden servers show NAME [--json]` with no core running, without building one: the server
 * from config.json and the host facts a launch would use now, as `servers list` reads them
 * (servers-list.ts), printed as the core's answer is. Anything else (`--effective`, which needs
 * the policy layers; another flag; a server that is not there; facts that do not show a usable
 * sandbox) answers nothing, and the caller runs the whole servers command.
 */
import { terminalJson } from '../../app/text/terminal-json';
import { serverView } from '../core/server-views';
import type { CliIo } from './cli-io';
import { describeServer } from './servers-describe';
import { type WithoutCoreOptions, serversWithoutCore } from './servers-list';

/** Shows the server and returns 0, or returns undefined when the whole command must answer. */
export async function showWithoutCore(
  args: readonly string[],
  io: CliIo,
  wardenHome: string,
  options: WithoutCoreOptions = {},
): Promise<number | undefined> {
  const json = args.includes('--json');
  const names = args.filter((a) => a !== '--json');
  if (names.length !== 1 || names[0]!.startsWith('-')) return undefined;
  const found = await serversWithoutCore(io, wardenHome, options);
  const server = found?.servers.find((s) => s.name === names[0]);
  if (!found || !server) return undefined;
  const view = serverView(server, found.report);
  io.stdout(json ? `${terminalJson(view)}\n` : `${describeServer(view)}\n`);
  return 0;
}
