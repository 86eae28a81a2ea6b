/**
 * The flags of the commands that take a policy, as data: what help lists and what the flag check
 * accepts. Kept free of the policy schema so that looking a command up loads no validation code.
 */

/** One flag of a command: its name, the value it takes (if any) and one line of help. */
export interface FlagSpec {
  name: string;
  value?: string;
  help: string;
}

/**
 * Flags from a table written the way help prints them: one flag a line, its name and value, two or
 * more spaces, then its help. A line that does not start with `--` goes on with the help above.
 */
export function flagTable(table: string): FlagSpec[] {
  const flags: FlagSpec[] = [];
  for (const line of table.split('\n').map((l) => l.trim())) {
    const row = /^(--[a-z-]+)(?: (\S+))?\s{2,}(.+)$/.exec(line);
    const above = flags.at(-1);
    if (row) {
      const [, name = '', value, help = ''] = row;
      flags.push(value === undefined ? { name, help } : { name, value, help });
    } else if (line !== '' && above) above.help += ` ${line}`;
    else if (line !== '') throw new Error(`not a flag line: ${line}`);
  }
  return flags;
}

/** The policy flags, in the order help lists them. */
export const POLICY_FLAGS: readonly FlagSpec[] = flagTable(`
  --isolation sandbox|off     run in the sandbox (default) or as a plain process
  --ro PATH                   a folder the server may read (repeatable)
  --rw PATH                   a folder the server may read and write (repeatable)
  --net none|allowlist|ask    network: none (default), only allowed destinations, or ask
  --allow PATTERN             allowed destination: host, *.domain, [v6] or IP, optional :port
  --deny PATTERN              refused destination (deny wins over allow)
  --allow-address ADDR        a private/loopback address or CIDR range the server may reach
  --env NAME                  pass the host variable NAME through (repeatable)
  --set-env KEY=VALUE         set KEY for the server (repeatable)
  --memory MB                 memory limit
  --pids N                    process limit
  --cpu SECONDS               CPU time limit
  --files N                   open files limit
  --wall SECONDS              wall-clock time limit
  --hide PATH                 also hide PATH (~/x, /abs, or a name such as .env.*) inside the roots
  --unhide PATH               show an inherited hidden path to this server (an audited exception)
  --unprotect NAME            let the server write workspace file NAME (.git, .vscode, .mcp.json,
                              …) in its writable folders, kept read-only there otherwise (an
                              exception)
  --protect NAME              keep workspace file NAME read-only again (undoes --unprotect)
  --best-effort LIMIT         launch even if LIMIT (memory|pids|cpu|files|wall) cannot be
                              enforced
  --arg-rule TOOL:ARG:RULE    check ARG of TOOL (* for any) before each call: within=PATH,
                              within-roots, host-allowed, match=REGEX, max-length=N, one-of=A|B
                              (repeatable)
  --disable-tool TOOL         hide TOOL from clients and refuse its calls (repeatable)
  --require-approval TOOL     ask before each call of TOOL (repeatable)
  --credentials redact|block|ask|off  credentials in results: redact (default), withhold
                              (block, ask) or pass (off); a call carrying a secret of another
                              server is refused (ask: approved first)
`);

/** Help lines for a list of flags, aligned the same way everywhere; a long name gets its own line. */
export function flagLines(flags: readonly FlagSpec[]): string {
  const left = flags.map((f) => `${f.name}${f.value ? ` ${f.value}` : ''}`);
  const width = 28;
  return flags
    .map((f, i) => {
      const name = left[i]!;
      return name.length + 2 > width
        ? `  ${name}\n  ${' '.repeat(width)}${f.help}`
        : `  ${name.padEnd(width)}${f.help}`;
    })
    .join('\n');
}

/**
 * The policy flags that act on a server's tool calls in the gateway: `exec` relays no MCP, so it
 * refuses them, saying why, rather than run the command without what they promise.
 */
export const TOOL_FLAG_NAMES: readonly string[] = [
  '--arg-rule',
  '--credentials',
  '--disable-tool',
  '--require-approval',
];

/** The policy flags `exec` takes: all but the tool flags. */
export const EXEC_POLICY_FLAGS = POLICY_FLAGS.filter((f) => !TOOL_FLAG_NAMES.includes(f.name));

export const EXEC_POLICY_FLAGS_HELP = `Policy flags:\n${flagLines(EXEC_POLICY_FLAGS)}`;

/** The flags of `servers add` for a remote server, in the order help lists them. */
export const REMOTE_FLAGS: readonly FlagSpec[] = flagTable(`
  --url URL                   a remote server: connect to this http(s) URL instead of running
                              a command; its host must pass the network flags (allowed by
                              default)
  --header NAME:VALUE         send this header to the server (repeatable); the value is kept in
                              the secret store, never in config.json
  --transport streamable-http|sse  streamable-http (default) or the legacy HTTP+SSE transport
  --oauth                     the server signs in with OAuth: run warden servers sign-in NAME
                              once; tokens are kept in the secret store and refreshed
  --oauth-scope SCOPE         ask for this scope at sign-in (repeatable; implies --oauth)
`);

/** The removal flags of `servers edit`, in the order help lists them. */
export const EDIT_FLAGS: readonly FlagSpec[] = flagTable(`
  --remove-root PATH             take a folder (--ro or --rw) away
  --remove-allow PATTERN         take an allowed destination away
  --remove-deny PATTERN          take a refused destination away
  --remove-allow-address ADDR    take an allowed address away
  --remove-env NAME              stop passing or setting the variable NAME
  --no-limit LIMIT               drop a limit: memory, pids, cpu, files or wall (no longer best
                                 effort either)
  --remove-arg-rule TOOL:ARG:RULE  take an argument rule away
  --no-best-effort LIMIT         refuse the launch again if LIMIT cannot be enforced
  --enable-tool TOOL             let a disabled tool through again
  --no-require-approval TOOL     call TOOL without asking again
`);
