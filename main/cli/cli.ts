/**
 * The `warden` command: answers --help and --version for every command from one table, refuses a
 * flag a command does not take, then dispatches; each command returns its exit status.
 */
import packageJson from '../../package.json';
import type { ContractCaller } from '../core/control-channel';
import type { createCore } from '../core/core';
import { resolveWardenHome } from '../config/warden-home';
import { type CliIo, EXIT_USAGE } from './cli-io';
import { showUntrusted } from '../../app/text/untrusted-text';
import { type CommandSpec, COMMAND_GROUPS, LEAF_COMMANDS } from './command-specs';
import {
  asksForHelp,
  commandHelp,
  groupHelp,
  mainHelp,
  unknownFlag,
  unknownFlagMessage,
} from './help';

type Command = (args: string[], io: CliIo) => Promise<number>;
type Core = Awaited<ReturnType<typeof createCore>>;

/** `warden --version`. */
export const WARDEN_VERSION: string = packageJson.version;

const withCore =
  (run: (args: string[], io: CliIo, core: Core) => Promise<number>): Command =>
  async (args, io) => {
    const { createCore } = await import('../core/core');
    const core = await createCore({ wardenHome: resolveWardenHome() });
    try {
      const { configProblemWarning } = await import('./state-folder');
      for (const problem of core.config.getProblems()) io.stderr(configProblemWarning(problem));
      return await run(args, io, core);
    } finally {
      await core.close();
    }
  };

/** `servers` goes through the running core when there is one, so that one process writes. */
const servers: Command = async (args, io) => {
  const { runningCore } = await import('../core/control-channel');
  const home = resolveWardenHome();
  let running;
  try {
    running = await runningCore(home);
  } catch (error) {
    io.stderr(`warden: ${showUntrusted((error as Error).message)}\n`);
    return 1;
  }
  if (!running && args[0] === 'list') {
    // Listing needs neither the audit log nor a fresh probe, nor (mostly) the schemas.
    const listed = await (await import('./servers-list')).listWithoutCore(args.slice(1), io, home);
    if (listed !== undefined) return listed;
  }
  if (!running && args[0] === 'show') {
    // Nor does showing one server, as the core would show it.
    const shown = await (await import('./servers-show')).showWithoutCore(args.slice(1), io, home);
    if (shown !== undefined) return shown;
  }
  const [{ needsRunningCore, runServersCommand }, { noCoreMessage }] = await Promise.all([
    import('./servers-command'),
    import('./state-folder'),
  ]);
  if (running) return runServersCommand(args, io, running);
  if (needsRunningCore(args[0])) {
    io.stderr(`warden: servers ${args[0]!}: ${noCoreMessage(home)}\n`);
    return 1;
  }
  return withCore(runServersCommand)(args, io);
};

/**
 * A command that runs against the running core when there is one (one process writes the config,
 * the secrets and the audit chain), else against a core of its own. `load` gives its code.
 */
const viaRunningCore =
  (
    load: () => Promise<
      (args: string[], io: CliIo, core: Core | ContractCaller) => Promise<number>
    >,
  ): Command =>
  async (args, io) => {
    const [{ runningCore }, run] = await Promise.all([import('../core/control-channel'), load()]);
    let running;
    try {
      running = await runningCore(resolveWardenHome());
    } catch (error) {
      io.stderr(`warden: ${showUntrusted((error as Error).message)}\n`);
      return 1;
    }
    if (running) return run(args, io, running);
    return withCore(run)(args, io);
  };

// Each command's code is loaded only when that command runs (a separate chunk in the build).
const commands: Record<string, Command> = {
  servers,
  policy: viaRunningCore(async () => (await import('./policy-command')).runPolicyCommand),
  import: viaRunningCore(async () => (await import('../clients/clients-cli')).runImportCommand),
  clients: viaRunningCore(async () => (await import('../clients/clients-cli')).runClientsCommand),
  serve: async (args, io) => (await import('../web/serve-command')).runServeCommand(args, io),
  connect: async (args, io) =>
    (await import('../gateway/connect-command')).runConnectCommand(args, io),
  audit: async (args, io) =>
    (await import('../audit/audit-cli')).runAuditCommand(args, io, {
      wardenHome: resolveWardenHome(),
    }),
  telemetry: async (args, io) =>
    (await import('../telemetry/telemetry-command')).runTelemetryCommand(
      args,
      io,
      resolveWardenHome(),
    ),
  open: async (_args, io) => (await import('./open-command')).runOpenCommand(io),
  autostart: async (args, io) =>
    (await import('../autostart/autostart-command')).runAutostartCommand(args, io),
  exec: async (args, io) => (await import('../sandbox/exec-command')).runExecCommand(args, io),
  doctor: async (args, io) =>
    (await import('../sandbox/doctor-command')).runDoctorCommand(args, io),
};

/** Finds the spec of `warden ARGV…`, or the help or error to print instead. */
function lookUp(
  argv: readonly string[],
): { spec: CommandSpec; args: string[] } | { out: string; status: number } | { err: string } {
  const [name, ...rest] = argv;
  const leaf = LEAF_COMMANDS.find((c) => c.path[0] === name);
  if (leaf) return { spec: leaf, args: rest };
  const group = COMMAND_GROUPS.find((g) => g.name === name);
  if (!group) {
    const names = [...COMMAND_GROUPS.map((g) => g.name), ...LEAF_COMMANDS.map((c) => c.path[0])];
    return {
      err: `unknown command "${showUntrusted(name ?? '')}" (expected one of: ${names.join(', ')}; see warden --help)`,
    };
  }
  const [sub, ...args] = rest;
  if (sub === undefined) return { out: groupHelp(group), status: EXIT_USAGE };
  if (sub === '--help' || sub === '-h' || sub === 'help')
    return { out: groupHelp(group), status: 0 };
  const spec = group.subcommands.find((s) => s.path[1] === sub);
  if (!spec) {
    const subs = group.subcommands.map((s) => s.path[1]).join(', ');
    return {
      err: `${group.name}: unknown subcommand "${showUntrusted(sub)}" (expected one of: ${subs}; see warden ${group.name} --help)`,
    };
  }
  return { spec, args };
}

/** Runs `warden ARGV`; returns the exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(mainHelp(resolveWardenHome()));
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    io.stdout(mainHelp(resolveWardenHome()));
    return 0;
  }
  if (name === 'help') return runCli([...rest, '--help'], io);
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`warden ${WARDEN_VERSION}\n`);
    return 0;
  }
  const found = lookUp(argv);
  if ('err' in found) {
    io.stderr(`warden: ${found.err}\n`);
    return EXIT_USAGE;
  }
  if ('out' in found) {
    (found.status === 0 ? io.stdout : io.stderr)(found.out);
    return found.status;
  }
  if (asksForHelp(found.args)) {
    io.stdout(commandHelp(found.spec));
    return 0;
  }
  const unknown = unknownFlag(found.spec, found.args);
  if (unknown !== undefined) {
    io.stderr(`warden: ${unknownFlagMessage(found.spec, unknown)}\n`);
    return EXIT_USAGE;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`warden: ${name}: not available in this build\n`);
    return EXIT_USAGE;
  }
  return command(argv.slice(1), io);
}
