/**
 * `warden servers list` with no core running, without building one: the validated config and
 * the host facts a launch would use now (the recent probe launches share), and nothing else (no
 * audit database, no MCP SDK, no fresh probe). Where those facts do not show a usable sandbox,
 * or on a platform whose backend is not bubblewrap, it answers nothing and the caller builds the
 * whole core, whose fresh probe says why.
 */
import type { Reply } from '../../app/contract/reply';
import { ConfigStore } from '../config/config-store';
import type { ContractCaller } from '../core/control-channel';
import { serverView } from '../core/server-views';
import { backendChoice } from '../sandbox/linux/landlock/choose-linux-backend';
import { sandboxUsable } from '../sandbox/linux/host-facts';
import { linuxDoctorReport } from '../sandbox/linux/linux-doctor';
import { DEFAULT_BWRAP, probeLinuxHost } from '../sandbox/linux/probe';
import { cachedHostFacts } from '../sandbox/linux/probe-cache';
import type { CliIo } from './cli-io';
import { configProblemWarning } from './state-folder';

/** A caller that answers `servers.list` alone, or undefined when the whole core must answer. */
export async function serversListCaller(
  wardenHome: string,
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ContractCaller | undefined> {
  if (process.platform !== 'linux' || backendChoice(env) === 'landlock') return undefined;
  const facts = await cachedHostFacts(env.WARDEN_BWRAP ?? DEFAULT_BWRAP, probeLinuxHost);
  if (!sandboxUsable(facts)) return undefined;
  // Opened only now: a malformed file is moved aside once, and its warning printed here.
  const config = await ConfigStore.open({ wardenHome });
  for (const problem of config.getProblems()) io.stderr(configProblemWarning(problem));
  const report = linuxDoctorReport(facts);
  return {
    wardenHome,
    handle: (op): Promise<Reply> =>
      Promise.resolve(
        op === 'servers.list'
          ? { ok: true, value: config.listServers().map((s) => serverView(s, report)) }
          : { ok: false, error: { kind: 'internal', message: `${op}: needs the whole core` } },
      ),
  };
}
