/**
 * Every `warden` command and subcommand as data: its arguments, what it does and the flags it
 * takes. The help of every command is rendered from this table in one layout, and a flag that a
 * command does not take is refused before the command runs, naming that command's --help.
 */
import { AUDIT_KINDS as auditKinds } from '../../app/audit/audit-kinds';
import {
  EDIT_FLAGS,
  EXEC_POLICY_FLAGS,
  type FlagSpec,
  POLICY_FLAGS,
  REMOTE_FLAGS,
  TOOL_FLAG_NAMES,
  flagTable,
} from './flag-specs';
import {
  type CommandGroup,
  type CommandSpec,
  type FlagSection,
  command,
  json,
} from './command-spec';
import { autostart, globalPolicy, telemetry } from './setting-commands';

export type { CommandGroup, CommandSpec, FlagSection } from './command-spec';

const policy: FlagSection = { title: 'Policy flags', flags: POLICY_FLAGS };
/** Which loopback `localhost` is inside the sandbox (app/policy/network-loopback.ts). */
const LOOPBACK_NOTE =
  "Under bubblewrap, localhost is the sandbox's own unless the policy names a loopback host or\n" +
  "address (--allow localhost:PORT, --allow-address 127.0.0.1); then it is this computer's,\n" +
  'reached through Warden once --allow-address lists the address.';
const auditFilters: FlagSection = {
  title: 'Filters',
  flags: flagTable(`
    --server NAME                 rows of one server
    --instance ID                 rows of one instance
    --kind KIND                   rows of one kind (mcp.request and mcp.response also list mcp.call, a call recorded in one row): ${auditKinds.join(', ')}
    --outcome ok|refused|error|info  rows with this outcome
    --since TIME                  ISO 8601 time, or a duration ago: 30s, 15m, 2h, 7d
    --until TIME                  as --since
    --text WORDS                  words in the summary (end one with * for a prefix)
  `),
};
const clientPath: FlagSpec = {
  name: '--path',
  value: 'FILE',
  help: "the client's config file, if not where the client keeps it",
};
const CLIENT_IDS = 'claude-desktop, claude-code, cursor, vscode, windsurf, zed';

const servers: CommandGroup = {
  name: 'servers',
  summary: 'manage servers and their policies',
  subcommands: [
    command('servers list [--json]', 'servers, their isolation and their full command line', {
      flags: [json],
    }),
    command(
      'servers add NAME [policy flags] (-- COMMAND [ARGS...] | --url URL [remote flags])',
      'add a server: sandboxed, no files, no network unless the flags grant them',
      {
        details:
          'You typed its command, so the server is confirmed. A script given to an interpreter\n' +
          '(node, python, deno, bun, uv run, ...) must be an absolute path inside a folder the\n' +
          'server can see; otherwise the add is refused with the --ro to declare.\n' +
          "A remote server (--url) goes through the same gateway; its URL's host is allowed\n" +
          'unless --net says otherwise, and a private or loopback address needs --allow-address.\n' +
          LOOPBACK_NOTE,
        sections: [{ title: 'Remote flags', flags: REMOTE_FLAGS }, policy],
      },
    ),
    command(
      'servers edit NAME [policy flags] [removal flags]',
      "change a server's policy: a new revision, recorded in the audit log",
      {
        details:
          'Policy flags add roots, destinations and variables, and replace isolation, network\n' +
          'mode and limits. Removal flags take them away. Running instances keep the revision\n' +
          'they started with until restarted (warden servers restart NAME); a change of only\n' +
          'the tool flags applies to them at once.',
        sections: [policy, { title: 'Removal flags', flags: EDIT_FLAGS }],
      },
    ),
    command(
      'servers show NAME [--json] [--effective]',
      "a server's command, isolation, revision and policy",
      {
        flags: [
          json,
          ...flagTable(`
          --effective    what applies after the managed policy and the guards, and from which layer
        `),
        ],
      },
    ),
    command('servers confirm NAME', "confirm a server's full command so that it may start", {
      details: 'A server added or imported elsewhere starts only once its command is confirmed.',
    }),
    command('servers remove NAME', 'stop and remove a server'),
    command(
      'servers forget-pin NAME TOOL',
      "forget a tool's pinned definition: the next listing pins it anew, without asking",
      {
        details:
          'For a tool the server no longer offers, or one whose changed definition you take as it\n' +
          'is now (warden servers show NAME lists the pinned tools). Recorded in the audit log.',
      },
    ),
    command(
      'servers start NAME',
      'start an instance that the running Warden holds (the app or warden serve)',
    ),
    command(
      'servers stop NAME',
      "stop every instance of NAME in the running Warden, AI clients' sessions included",
    ),
    command(
      'servers restart NAME',
      'restart every instance of NAME, so that it runs the newest policy revision',
    ),
    command(
      'servers status [NAME] [--json]',
      'instances in the running Warden: state, revision, last lines of stderr',
      { flags: [json] },
    ),
    command(
      'servers sign-in NAME',
      'sign in to a remote server that asks for OAuth, in the system browser',
      {
        details:
          'The sign-in page opens in your browser (the address is printed too) and comes back to\n' +
          'a one-time listener on 127.0.0.1. Tokens are kept in the secret store and refreshed\n' +
          'before they expire; when the server refuses them, its calls fail until you sign in again.',
      },
    ),
    command(
      'servers sign-out NAME',
      "forget a remote server's OAuth tokens and client registration",
    ),
  ],
};

const audit: CommandGroup = {
  name: 'audit',
  summary: 'read, export and verify the audit log',
  subcommands: [
    command(
      'audit list [filters] [--limit N] [--cursor ID] [--json]',
      'rows of the audit log, newest first',
      {
        flags: [
          ...flagTable(`
            --limit N     rows per page
            --cursor ID   the next page, as printed by the previous one
          `),
          json,
        ],
        sections: [auditFilters],
      },
    ),
    command(
      'audit export FILE [filters]',
      'write matching rows to FILE as JSON Lines, oldest first',
      {
        sections: [auditFilters],
      },
    ),
    command(
      'audit verify',
      'recompute the hash chain and compare its end with the recorded head; exit 1 and name ' +
        'the first broken row, or the rows cut from the end',
    ),
    command(
      'audit prune [--max-age-days N|none] [--max-size-mb N|none]',
      'apply retention now; the log keeps an anchor so that verify checks every kept row',
      {
        details: 'Without flags, the limits of audit.retention in config.json apply.',
        flags: flagTable(`
          --max-age-days N|none   remove rows older than N days
          --max-size-mb N|none    remove the oldest rows past N MB
        `),
      },
    ),
  ],
};

const clients: CommandGroup = {
  name: 'clients',
  summary: "route an AI client's servers through Warden, or restore them",
  subcommands: [
    command(
      'clients list [--json]',
      'which clients are installed and which of their servers go through Warden',
      { flags: [json] },
    ),
    command(
      'clients connect CLIENT [--path FILE] [--transport stdio|http] [--gateway-port N] [--yes | --dry-run]',
      "rewrite CLIENT's imported entries to go through Warden (a backup is kept)",
      {
        details:
          'Shows the change to the file first and asks before writing; --yes writes without\n' +
          'asking, --dry-run only shows it. With Warden running (the app or warden serve), every\n' +
          "clients command goes through it, and HTTP entries point at its gateway's port.\n" +
          `CLIENT: ${CLIENT_IDS}`,
        flags: [
          clientPath,
          ...flagTable(`
            --transport stdio|http   warden connect (default) or HTTP
            --gateway-port N         the port of Warden's own gateway, for --transport http
                                     (default 47821)
            --yes                    write without asking
            --dry-run                show the change and write nothing
          `),
        ],
      },
    ),
    command(
      'clients disconnect CLIENT [--path FILE]',
      'give CLIENT its own entries back, exactly as they were',
      {
        flags: [clientPath],
      },
    ),
    command(
      'clients revoke CLIENT [--path FILE]',
      "cut off CLIENT's gateway token; connect CLIENT again to give it a new one",
      { flags: [clientPath] },
    ),
  ],
};

const leaves: readonly CommandSpec[] = [
  command(
    'serve [--port N] [--gateway-port N] [--no-open] [--no-token]',
    'serve the control panel and the MCP gateway on 127.0.0.1',
    {
      details:
        'Opens the browser through a one-time sign-in file only you can read, and prints the\n' +
        'address and a session token for a browser opened by hand (sign in at ADDRESS/login).\n' +
        'The address is a .localhost name new at each start; 127.0.0.1 is the fallback for\n' +
        'browsers that cannot open it, and for scripts.\n' +
        'Anyone with the token can drive Warden. A gateway port held by another program is an\n' +
        'error naming it. One Warden runs per state folder; a second is refused with the PID of\n' +
        'the first. Stop with Ctrl+C.',
      flags: flagTable(`
        --port N           the control panel port (default: a free one)
        --gateway-port N   the MCP gateway port, http://127.0.0.1:N/mcp/NAME (default 47821;
                           0: a free one)
        --no-open          do not open the URL in a browser
        --no-token         do not print the session token ("warden open" signs a browser in)
      `),
    },
  ),
  command('open', "show the running Warden's control panel", {
    details:
      'The app brings its window up. For `warden serve` (started at login, say), your browser is\n' +
      'signed in through a one-time sign-in file that only you can read, as `serve` does itself,\n' +
      "at this run's address (or 127.0.0.1 if the browser cannot open it).\n" +
      'The desktop app has its own "Start at login" switch on its Host screen.',
  }),
  command(
    'connect NAME [--client LABEL] [--max-message-bytes N]',
    "relay an AI client's stdio to a new sandboxed instance of NAME",
    {
      details:
        "What an AI client's config points at. Joins the running Warden if there is one.\n" +
        'The state folder is $WARDEN_HOME: set it in the client\'s config "env" if it is not\n' +
        'the default.',
      flags: flagTable(`
        --client LABEL            the name the audit log gives this client
        --max-message-bytes N     largest JSON-RPC message relayed
      `),
    },
  ),
  command(
    'exec [policy flags] [--resolve NAME:ADDR] -- COMMAND [ARGS...]',
    'run any command under a policy (sandboxed by default: no files, no network)',
    {
      details:
        "Exits with COMMAND's status (128+N if signal N killed it), 124 when the wall-time limit\n" +
        'ended it, 125 when the launch was refused (the reason and remedy are printed), 2 for\n' +
        'bad flags.\n' +
        LOOPBACK_NOTE,
      flags: flagTable(`
        --resolve NAME:ADDR   answer NAME with ADDR on the host, like curl's (NAME:PORT:ADDR for
                              one port)
      `),
      sections: [{ title: 'Policy flags', flags: EXEC_POLICY_FLAGS }],
      refuses: {
        flags: TOOL_FLAG_NAMES,
        why: "it acts on a server's tool calls, which exec does not relay; add the command as a server (warden servers add NAME … -- COMMAND)",
      },
    },
  ),
  command(
    'doctor [--verify] [--json]',
    'what this host can enforce, and the remedy for anything missing',
    {
      details:
        'Exits 0 when sandboxing works on this host (and, with --verify, every escape attempt\n' +
        'was refused), 1 when it does not.',
      flags: [
        ...flagTable(`
        --verify   attempt real escapes inside the sandbox and show each result
      `),
        json,
      ],
    },
  ),
  command(
    'import CLIENT [--path FILE] [--yes] [--json]',
    "preview (then import with --yes) the servers of an AI client's config",
    {
      details:
        'Shows every server with its full command, the policy Warden proposes and warnings.\n' +
        'Nothing is imported without --yes, and nothing is started. With Warden running (the\n' +
        'app or warden serve), the import goes through it and its secrets go to its store (the\n' +
        `OS keychain for the app). CLIENT: ${CLIENT_IDS}`,
      flags: [clientPath, { name: '--yes', help: 'import the ready servers' }, json],
    },
  ),
];

/** The command groups, each with subcommands. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  servers,
  globalPolicy,
  audit,
  clients,
  telemetry,
  autostart,
];

/** Commands without subcommands. */
export const LEAF_COMMANDS: readonly CommandSpec[] = leaves;

/** Every command and subcommand, for the help test and for lookups. */
export const ALL_COMMANDS: readonly CommandSpec[] = [
  ...COMMAND_GROUPS.flatMap((g) => g.subcommands),
  ...LEAF_COMMANDS,
];
