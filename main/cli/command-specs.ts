/**
 * Every `warden` command and subcommand as data: its arguments, what it does and the flags it
 * takes. The help of every command is rendered from this table in one layout, and a flag that a
 * command does not take is refused before the command runs, naming that command's --help.
 */
import { AUDIT_KINDS as auditKinds } from '../../app/audit/audit-kinds';
import { EDIT_FLAGS, type FlagSpec, POLICY_FLAGS } from './flag-specs';

export interface FlagSection {
  title: string;
  flags: readonly FlagSpec[];
}

export interface CommandSpec {
  /** The words after `warden`, e.g. `['servers', 'add']`. */
  path: readonly string[];
  /** Arguments after the words, as shown in the usage line. */
  args: string;
  summary: string;
  /** More text under the summary; plain lines. */
  details?: string;
  flags: readonly FlagSpec[];
  /** Further groups of flags the command takes, each listed under its title. */
  sections?: readonly FlagSection[];
}

export interface CommandGroup {
  name: string;
  summary: string;
  subcommands: readonly CommandSpec[];
}

const json: FlagSpec = { name: '--json', help: 'print JSON instead of text' };
const policy: FlagSection = { title: 'Policy flags', flags: POLICY_FLAGS };
const auditFilters: readonly FlagSpec[] = [
  { name: '--server', value: 'NAME', help: 'rows of one server' },
  { name: '--instance', value: 'ID', help: 'rows of one instance' },
  { name: '--kind', value: 'KIND', help: `rows of one kind: ${auditKinds.join(', ')}` },
  { name: '--outcome', value: 'ok|refused|error|info', help: 'rows with this outcome' },
  { name: '--since', value: 'TIME', help: 'ISO 8601 time, or a duration ago: 30s, 15m, 2h, 7d' },
  { name: '--until', value: 'TIME', help: 'as --since' },
  { name: '--text', value: 'WORDS', help: 'words in the summary (end one with * for a prefix)' },
];
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
    {
      path: ['servers', 'list'],
      args: '[--json]',
      summary: 'servers, their isolation and their full command line',
      flags: [json],
    },
    {
      path: ['servers', 'add'],
      args: 'NAME [policy flags] -- COMMAND [ARGS...]',
      summary: 'add a server: sandboxed, no files, no network unless the flags grant them',
      details:
        'You typed its command, so the server is confirmed. A script given to an interpreter\n' +
        '(node, python, deno, bun, uv run, ...) must be an absolute path inside a folder the\n' +
        'server can see; otherwise the add is refused with the --ro to declare.',
      flags: [],
      sections: [policy],
    },
    {
      path: ['servers', 'edit'],
      args: 'NAME [policy flags] [removal flags]',
      summary: "change a server's policy: a new revision, recorded in the audit log",
      details:
        'Policy flags add roots, destinations and variables, and replace isolation, network\n' +
        'mode and limits. Removal flags take them away. Running instances keep the revision\n' +
        'they started with until restarted (warden servers restart NAME).',
      flags: [],
      sections: [policy, { title: 'Removal flags', flags: EDIT_FLAGS }],
    },
    {
      path: ['servers', 'show'],
      args: 'NAME [--json] [--effective]',
      summary: "a server's command, isolation, revision and policy",
      flags: [
        json,
        {
          name: '--effective',
          help: 'what applies after the managed policy and the guards, and from which layer',
        },
      ],
    },
    {
      path: ['servers', 'confirm'],
      args: 'NAME',
      summary: "confirm a server's full command so that it may start",
      details: 'A server added or imported elsewhere starts only once its command is confirmed.',
      flags: [],
    },
    {
      path: ['servers', 'remove'],
      args: 'NAME',
      summary: 'stop and remove a server',
      flags: [],
    },
    {
      path: ['servers', 'start'],
      args: 'NAME',
      summary: 'start an instance that the running Warden holds (the app or warden serve)',
      flags: [],
    },
    {
      path: ['servers', 'stop'],
      args: 'NAME',
      summary: "stop every instance of NAME in the running Warden, AI clients' sessions included",
      flags: [],
    },
    {
      path: ['servers', 'restart'],
      args: 'NAME',
      summary: 'restart every instance of NAME, so that it runs the newest policy revision',
      flags: [],
    },
    {
      path: ['servers', 'status'],
      args: '[NAME] [--json]',
      summary: 'instances in the running Warden: state, revision, last lines of stderr',
      flags: [json],
    },
  ],
};

const audit: CommandGroup = {
  name: 'audit',
  summary: 'read, export and verify the audit log',
  subcommands: [
    {
      path: ['audit', 'list'],
      args: '[filters] [--limit N] [--cursor ID] [--json]',
      summary: 'rows of the audit log, newest first',
      flags: [
        { name: '--limit', value: 'N', help: 'rows per page' },
        { name: '--cursor', value: 'ID', help: 'the next page, as printed by the previous one' },
        json,
      ],
      sections: [{ title: 'Filters', flags: auditFilters }],
    },
    {
      path: ['audit', 'export'],
      args: 'FILE [filters]',
      summary: 'write matching rows to FILE as JSON Lines, oldest first',
      flags: [],
      sections: [{ title: 'Filters', flags: auditFilters }],
    },
    {
      path: ['audit', 'verify'],
      args: '',
      summary:
        'recompute the hash chain and compare its end with the recorded head; exit 1 and name ' +
        'the first broken row, or the rows cut from the end',
      flags: [],
    },
    {
      path: ['audit', 'prune'],
      args: '[--max-age-days N|none] [--max-size-mb N|none]',
      summary: 'apply retention now; the log keeps an anchor so that verify checks every kept row',
      details: 'Without flags, the limits of audit.retention in config.json apply.',
      flags: [
        { name: '--max-age-days', value: 'N|none', help: 'remove rows older than N days' },
        { name: '--max-size-mb', value: 'N|none', help: 'remove the oldest rows past N MB' },
      ],
    },
  ],
};

const clients: CommandGroup = {
  name: 'clients',
  summary: "route an AI client's servers through Warden, or restore them",
  subcommands: [
    {
      path: ['clients', 'list'],
      args: '[--json]',
      summary: 'which clients are installed and which of their servers go through Warden',
      flags: [json],
    },
    {
      path: ['clients', 'connect'],
      args: 'CLIENT [--path FILE] [--transport stdio|http] [--gateway-port N] [--yes | --dry-run]',
      summary: "rewrite CLIENT's imported entries to go through Warden (a backup is kept)",
      details:
        'Shows the change to the file first and asks before writing; --yes writes without\n' +
        `asking, --dry-run only shows it. CLIENT: ${CLIENT_IDS}`,
      flags: [
        clientPath,
        { name: '--transport', value: 'stdio|http', help: 'warden connect (default) or HTTP' },
        {
          name: '--gateway-port',
          value: 'N',
          help: "the port of Warden's own gateway, for --transport http (default 47821)",
        },
        { name: '--yes', help: 'write without asking' },
        { name: '--dry-run', help: 'show the change and write nothing' },
      ],
    },
    {
      path: ['clients', 'disconnect'],
      args: 'CLIENT [--path FILE]',
      summary: 'give CLIENT its own entries back, exactly as they were',
      flags: [clientPath],
    },
    {
      path: ['clients', 'revoke'],
      args: 'CLIENT [--path FILE]',
      summary: "cut off CLIENT's gateway token; connect CLIENT again to give it a new one",
      flags: [clientPath],
    },
  ],
};

const leaves: readonly CommandSpec[] = [
  {
    path: ['serve'],
    args: '[--port N] [--gateway-port N] [--no-open]',
    summary: 'serve the control panel and the MCP gateway on 127.0.0.1',
    details:
      'Opens the browser through a one-time sign-in file only you can read, and prints the\n' +
      'address and a session token for a browser opened by hand (sign in at ADDRESS/login).\n' +
      'Anyone with the token can drive Warden. A gateway port held by another program is an\n' +
      'error naming it. One Warden runs per state folder; a second is refused with the PID of\n' +
      'the first. Stop with Ctrl+C.',
    flags: [
      { name: '--port', value: 'N', help: 'the control panel port (default: a free one)' },
      {
        name: '--gateway-port',
        value: 'N',
        help: 'the MCP gateway port, http://127.0.0.1:N/mcp/NAME (default 47821; 0: a free one)',
      },
      { name: '--no-open', help: 'do not open the URL in a browser' },
    ],
  },
  {
    path: ['connect'],
    args: 'NAME [--client LABEL] [--max-message-bytes N]',
    summary: "relay an AI client's stdio to a new sandboxed instance of NAME",
    details:
      "What an AI client's config points at. Joins the running Warden if there is one.\n" +
      'The state folder is $WARDEN_HOME: set it in the client\'s config "env" if it is not\n' +
      'the default.',
    flags: [
      { name: '--client', value: 'LABEL', help: 'the name the audit log gives this client' },
      { name: '--max-message-bytes', value: 'N', help: 'largest JSON-RPC message relayed' },
    ],
  },
  {
    path: ['exec'],
    args: '[policy flags] [--resolve NAME:ADDR] -- COMMAND [ARGS...]',
    summary: 'run any command under a policy (sandboxed by default: no files, no network)',
    details:
      "Exits with COMMAND's status (128+N if signal N killed it), 124 when the wall-time limit\n" +
      'ended it, 125 when the launch was refused (the reason and remedy are printed), 2 for\n' +
      'bad flags.',
    flags: [
      {
        name: '--resolve',
        value: 'NAME:ADDR',
        help: "answer NAME with ADDR on the host, like curl's (NAME:PORT:ADDR for one port)",
      },
    ],
    sections: [policy],
  },
  {
    path: ['doctor'],
    args: '[--verify] [--json]',
    summary: 'what this host can enforce, and the remedy for anything missing',
    details:
      'Exits 0 when sandboxing works on this host (and, with --verify, every escape attempt\n' +
      'was refused), 1 when it does not.',
    flags: [
      { name: '--verify', help: 'attempt real escapes inside the sandbox and show each result' },
      json,
    ],
  },
  {
    path: ['import'],
    args: 'CLIENT [--path FILE] [--yes] [--json]',
    summary: "preview (then import with --yes) the servers of an AI client's config",
    details:
      'Shows every server with its full command, the policy Warden proposes and warnings.\n' +
      `Nothing is imported without --yes, and nothing is started. CLIENT: ${CLIENT_IDS}`,
    flags: [clientPath, { name: '--yes', help: 'import the ready servers' }, json],
  },
];

const globalPolicy: CommandGroup = {
  name: 'policy',
  summary: 'the guards every server inherits, and the managed policy above them',
  subcommands: [
    {
      path: ['policy', 'show'],
      args: '[--json]',
      summary: 'hidden paths, network deny patterns, limits, whether isolation off is allowed',
      details:
        'Also shows the managed policy (/etc/mcp-warden/managed-policy.json, or the file\n' +
        'WARDEN_MANAGED_POLICY names), which no server can weaken.',
      flags: [json],
    },
    {
      path: ['policy', 'edit'],
      args: '[flags]',
      summary: 'change the guards every server inherits',
      details:
        'A server may still hide more (servers edit NAME --hide PATH) or show one inherited\n' +
        'path to itself alone (--unhide PATH), an exception recorded in the audit log.',
      flags: [
        { name: '--hide', value: 'PATH', help: 'hide PATH (~/x, /abs, or a name such as .env.*)' },
        { name: '--unhide', value: 'PATH', help: 'stop hiding PATH for every server' },
        { name: '--deny', value: 'PATTERN', help: 'a destination every server is refused' },
        { name: '--undeny', value: 'PATTERN', help: 'remove a global deny pattern' },
        {
          name: '--allow-off',
          value: 'yes|no',
          help: 'whether a server may run with isolation off',
        },
      ],
    },
  ],
};

/** The command groups, each with subcommands. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [servers, globalPolicy, audit, clients];

/** Commands without subcommands. */
export const LEAF_COMMANDS: readonly CommandSpec[] = leaves;

/** Every command and subcommand, for the help test and for lookups. */
export const ALL_COMMANDS: readonly CommandSpec[] = [
  ...COMMAND_GROUPS.flatMap((g) => g.subcommands),
  ...LEAF_COMMANDS,
];
