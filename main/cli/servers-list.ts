/**
 * `warden servers list` without the whole command line. With a running core, one question to it
 * over the control channel (`listFromCore`). With no core running, without building one:
 * config.json and the host facts a launch would use now (the recent probe launches share), and
 * nothing else (no audit database, no MCP SDK, no fresh probe). Bytes of config.json recorded as
 * validated by this build are used without loading the schemas; others go through the config
 * store, which validates them (and moves an unusable file aside, with its warning printed here).
 * Where the facts do not show a usable sandbox, on a platform whose backend is not bubblewrap, or
 * with arguments other than `--json`, it answers nothing and the caller runs the whole servers
 * command.
 */
import type { ServerView } from '../../app/contract/servers';
import type { Config, Server } from '../../app/policy/policy-schema';
import type { Reply } from '../../app/contract/reply';
import { BUILD_SCHEMA_ID, readRecordedConfig } from '../config/validated-config-cache';
import { type HostBackend, serverView } from '../core/server-views';
import { backendChoice } from '../sandbox/linux/landlock/backend-choice';
import { DEFAULT_BWRAP, sandboxUsable } from '../sandbox/linux/host-facts';
import { cachedHostFacts } from '../sandbox/linux/probe-cache';
import type { CliIo } from './cli-io';
import { printServersList } from './servers-list-output';

/** Lists the servers and returns 0, or returns undefined when the whole command must answer. */
export async function listWithoutCore(
  args: readonly string[],
  io: CliIo,
  wardenHome: string,
  options: WithoutCoreOptions = {},
): Promise<number | undefined> {
  if (args.some((a) => a !== '--json')) return undefined;
  const found = await serversWithoutCore(io, wardenHome, options);
  if (!found) return undefined;
  printServersList(
    found.servers.map((s) => serverView(s, found.report)),
    args.includes('--json'),
    io,
    wardenHome,
  );
  return 0;
}

export interface WithoutCoreOptions {
  env?: NodeJS.ProcessEnv;
  schemaId?: string;
}

/**
 * The servers and the host report a core would give them, read without a core: config.json and
 * the host facts a launch would use now. Undefined where those facts do not show a usable
 * sandbox, or where the backend is not bubblewrap: the whole command must answer then.
 */
export async function serversWithoutCore(
  io: CliIo,
  wardenHome: string,
  { env = process.env, schemaId = BUILD_SCHEMA_ID }: WithoutCoreOptions = {},
): Promise<{ servers: Server[]; report: HostBackend } | undefined> {
  if (process.platform !== 'linux' || backendChoice(env) === 'landlock') return undefined;
  // Probed (the probe's code loaded) only when no recent facts are shared.
  const facts = await cachedHostFacts(env.WARDEN_BWRAP ?? DEFAULT_BWRAP, async (bwrap) =>
    (await import('../sandbox/linux/probe')).probeLinuxHost(bwrap),
  );
  if (!sandboxUsable(facts)) return undefined;
  const recorded = readRecordedConfig(wardenHome, schemaId) as Config | undefined;
  const servers = recorded?.servers ?? (await storedServers(wardenHome, schemaId, io));
  // As the host report says it for facts that allow sandboxing: bubblewrap, available.
  const report: HostBackend = { backend: { name: 'bwrap', available: true }, checks: [] };
  return { servers, report };
}

/** The servers as the config store reads them (validated; an unusable file moved aside). */
async function storedServers(wardenHome: string, schemaId: string | undefined, io: CliIo) {
  const [{ ConfigStore }, { configProblemWarning }] = await Promise.all([
    import('../config/config-store'),
    import('./state-folder'),
  ]);
  const config = await ConfigStore.open({ wardenHome, schemaId });
  for (const problem of config.getProblems()) io.stderr(configProblemWarning(problem));
  await config.flush();
  return config.listServers();
}

/**
 * Lists the servers the running core of `wardenHome` gives through `ask` and returns 0, or
 * returns undefined when the whole command must answer (a flag other than `--json`, no core that
 * answered, a refusal: the whole command reports them).
 */
export async function listFromCore(
  args: readonly string[],
  io: CliIo,
  wardenHome: string,
  ask: (op: string, input: unknown) => Promise<Reply | undefined>,
): Promise<number | undefined> {
  if (args.some((a) => a !== '--json')) return undefined;
  const reply = await ask('servers.list', {});
  if (!reply?.ok) return undefined;
  printServersList(reply.value as ServerView[], args.includes('--json'), io, wardenHome);
  return 0;
}
