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

/** The policy flags, in the order help lists them. */
export const POLICY_FLAGS: readonly FlagSpec[] = [
  {
    name: '--isolation',
    value: 'sandbox|off',
    help: 'run in the sandbox (default) or as a plain process',
  },
  { name: '--ro', value: 'PATH', help: 'a folder the server may read (repeatable)' },
  { name: '--rw', value: 'PATH', help: 'a folder the server may read and write (repeatable)' },
  {
    name: '--net',
    value: 'none|allowlist|ask',
    help: 'network: none (default), only allowed destinations, or ask',
  },
  {
    name: '--allow',
    value: 'PATTERN',
    help: 'allowed destination: host, *.domain, [v6] or IP, optional :port',
  },
  { name: '--deny', value: 'PATTERN', help: 'refused destination (deny wins over allow)' },
  {
    name: '--allow-address',
    value: 'ADDR',
    help: 'a private/loopback address or CIDR range the server may reach',
  },
  { name: '--env', value: 'NAME', help: 'pass the host variable NAME through (repeatable)' },
  { name: '--set-env', value: 'KEY=VALUE', help: 'set KEY for the server (repeatable)' },
  { name: '--memory', value: 'MB', help: 'memory limit' },
  { name: '--pids', value: 'N', help: 'process limit' },
  { name: '--cpu', value: 'SECONDS', help: 'CPU time limit' },
  { name: '--files', value: 'N', help: 'open files limit' },
  { name: '--wall', value: 'SECONDS', help: 'wall-clock time limit' },
  {
    name: '--hide',
    value: 'PATH',
    help: 'also hide PATH (~/x, /abs, or a name such as .env.*) inside the roots',
  },
  {
    name: '--unhide',
    value: 'PATH',
    help: 'show an inherited hidden path to this server (an audited exception)',
  },
  {
    name: '--best-effort',
    value: 'LIMIT',
    help: 'launch even if LIMIT (memory|pids|cpu|files|wall) cannot be enforced',
  },
  {
    name: '--arg-rule',
    value: 'TOOL:ARG:RULE',
    help: 'check ARG of TOOL (* for any) before each call: within=PATH, within-roots, host-allowed, match=REGEX, max-length=N, one-of=A|B (repeatable)',
  },
  {
    name: '--credentials',
    value: 'redact|block|ask|off',
    help: 'credentials in results: redact (default), withhold (block, ask) or pass (off); a call carrying a secret of another server is refused (ask: approved first)',
  },
];

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

export const POLICY_FLAGS_HELP = `Policy flags:\n${flagLines(POLICY_FLAGS)}`;

/** The removal flags of `servers edit`, in the order help lists them. */
export const EDIT_FLAGS: readonly FlagSpec[] = [
  { name: '--remove-root', value: 'PATH', help: 'take a folder (--ro or --rw) away' },
  { name: '--remove-allow', value: 'PATTERN', help: 'take an allowed destination away' },
  { name: '--remove-deny', value: 'PATTERN', help: 'take a refused destination away' },
  { name: '--remove-allow-address', value: 'ADDR', help: 'take an allowed address away' },
  { name: '--remove-env', value: 'NAME', help: 'stop passing or setting the variable NAME' },
  {
    name: '--no-limit',
    value: 'LIMIT',
    help: 'drop a limit: memory, pids, cpu, files or wall (no longer best effort either)',
  },
  { name: '--remove-arg-rule', value: 'TOOL:ARG:RULE', help: 'take an argument rule away' },
  {
    name: '--no-best-effort',
    value: 'LIMIT',
    help: 'refuse the launch again if LIMIT cannot be enforced',
  },
];
