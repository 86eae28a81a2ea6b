/** The `warden` command: dispatches to subcommands; each returns its exit status. */
import { createCore } from '../core/core';
import { resolveWardenHome } from '../config/warden-home';
import { type CliIo, EXIT_USAGE } from './cli-io';
import { runAuditCommand } from '../audit/audit-cli';
import { runClientsCommand, runImportCommand } from '../clients/clients-cli';
import { runConnectCommand } from '../gateway/connect-command';
import { runDoctorCommand } from '../sandbox/doctor-command';
import { showUntrusted } from '../../app/text/untrusted-text';
import { runExecCommand } from '../sandbox/exec-command';
import { runServeCommand } from '../web/serve-command';
import { runServersCommand } from './servers-command';

export const MAIN_HELP = `warden: run every local MCP server in its own sandbox

Usage: warden <command> [options]

Commands:
  servers list|add|show|confirm|remove
                                 manage servers and their policies
  serve [--port N] [--gateway-port N] [--no-open]
                                 serve the control panel and the MCP gateway on 127.0.0.1
  doctor [--json]                what this host can enforce, and remedies
  exec [policy flags] -- CMD ... run a command under a policy
  connect NAME                   relay an AI client's stdio to a new sandboxed instance of NAME
  audit list|export|verify       read, export and verify the audit log
  import CLIENT [--path F] [--yes]
                                 preview (then import) the servers of an AI client's config
  clients list|connect|disconnect CLIENT
                                 route an AI client's servers through Warden, or restore them

Run "warden <command> --help" for details. State lives in $WARDEN_HOME (now: ${'${home}'}).
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

const withCore =
  (
    run: (
      args: string[],
      io: CliIo,
      core: Awaited<ReturnType<typeof createCore>>,
    ) => Promise<number>,
  ): Command =>
  async (args, io) => {
    const core = await createCore({ wardenHome: resolveWardenHome() });
    try {
      for (const problem of core.config.getProblems()) {
        io.stderr(
          `warden: warning: ${showUntrusted(problem.message)}; the file was moved to ${showUntrusted(problem.movedTo ?? '(nowhere)')} and Warden started with an empty config\n`,
        );
      }
      return await run(args, io, core);
    } finally {
      await core.close();
    }
  };

const commands: Record<string, Command> = {
  servers: withCore(runServersCommand),
  import: withCore(runImportCommand),
  clients: withCore(runClientsCommand),
  serve: (args, io) => runServeCommand(args, io),
  connect: (args, io) => runConnectCommand(args, io),
  audit: (args, io) => runAuditCommand(args, io, { wardenHome: resolveWardenHome() }),
  exec: (args, io) => runExecCommand(args, io),
  doctor: (args, io) => runDoctorCommand(args, io),
};

/** Registers a subcommand (used by the modules of later capabilities). */
export function registerCommand(name: string, command: Command): void {
  commands[name] = command;
}

/** Runs `warden ARGS`; returns the exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(MAIN_HELP.replace('${home}', resolveWardenHome()));
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(
      `warden: unknown command "${showUntrusted(name)}" (expected one of: ${Object.keys(commands).join(', ')}; see warden --help)\n`,
    );
    return EXIT_USAGE;
  }
  return command(args, io);
}
