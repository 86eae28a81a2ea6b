/**
 * Policy flags shared by every subcommand that takes a policy (`servers add`, `exec`, …). Each
 * bad flag or value is a UsageError naming the flag and what it accepts.
 */
import { resolve } from 'node:path';
import {
  type LimitName,
  type Policy,
  envNameSchema,
  limitNames,
} from '../../app/policy/policy-schema';
import { hiddenPathSchema } from '../../app/policy/guards';
import { UsageError } from './cli-io';

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

const limitFlag: Record<string, LimitName> = {
  '--memory': 'memoryMb',
  '--pids': 'pids',
  '--cpu': 'cpuSeconds',
  '--files': 'openFiles',
  '--wall': 'wallSeconds',
};
const bestEffortNames: Record<string, LimitName> = {
  memory: 'memoryMb',
  pids: 'pids',
  cpu: 'cpuSeconds',
  files: 'openFiles',
  wall: 'wallSeconds',
};

function takeValue(
  flag: string,
  inline: string | undefined,
  args: readonly string[],
  i: number,
): [string, number] {
  if (inline !== undefined) return [inline, i];
  const next = args[i + 1];
  if (next === undefined || (next.startsWith('--') && next.length > 2)) {
    throw new UsageError(`${flag}: needs a value`);
  }
  return [next, i + 1];
}

function positiveInt(flag: string, value: string, what: string): number {
  if (!/^[1-9][0-9]*$/.test(value))
    throw new UsageError(`${flag}: expected ${what} (a positive whole number), got "${value}"`);
  return Number(value);
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag}: expected one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

/**
 * Applies the policy flags in `args` to a copy of `base`. Tokens that are not policy flags are
 * returned in `rest`, in order, for the subcommand to handle. Throws UsageError.
 */
export function parsePolicyFlags(
  args: readonly string[],
  base: Policy,
  cwd: string = process.cwd(),
): { policy: Policy; rest: string[] } {
  const policy = structuredClone(base);
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const flag = eq > 0 ? token.slice(0, eq) : token;
    const inline = eq > 0 ? token.slice(eq + 1) : undefined;
    let value: string;
    switch (flag) {
      case '--isolation':
        [value, i] = takeValue(flag, inline, args, i);
        policy.isolation = oneOf(flag, value, ['sandbox', 'off'] as const);
        break;
      case '--ro':
      case '--rw':
        [value, i] = takeValue(flag, inline, args, i);
        if (value === '') throw new UsageError(`${flag}: expected a folder path`);
        policy.filesystem.roots.push({
          path: resolve(cwd, value),
          access: flag === '--rw' ? 'write' : 'read',
        });
        break;
      case '--net':
        [value, i] = takeValue(flag, inline, args, i);
        policy.network.mode = oneOf(flag, value, ['none', 'allowlist', 'ask'] as const);
        break;
      case '--allow':
      case '--deny':
      case '--allow-address':
        [value, i] = takeValue(flag, inline, args, i);
        if (value.trim() === '') throw new UsageError(`${flag}: expected a pattern`);
        (flag === '--allow'
          ? policy.network.allow
          : flag === '--deny'
            ? policy.network.deny
            : policy.network.allowAddresses
        ).push(value.trim());
        break;
      case '--env':
        [value, i] = takeValue(flag, inline, args, i);
        if (!envNameSchema.safeParse(value).success)
          throw new UsageError(`${flag}: expected a variable name, got "${value}"`);
        policy.env.pass.push(value);
        break;
      case '--set-env': {
        [value, i] = takeValue(flag, inline, args, i);
        const at = value.indexOf('=');
        const key = at > 0 ? value.slice(0, at) : '';
        if (!envNameSchema.safeParse(key).success)
          throw new UsageError(
            `${flag}: expected KEY=VALUE with a variable name as KEY, got "${value}"`,
          );
        policy.env.set[key] = { kind: 'plain', value: value.slice(at + 1) };
        break;
      }
      case '--memory':
      case '--pids':
      case '--cpu':
      case '--files':
      case '--wall': {
        [value, i] = takeValue(flag, inline, args, i);
        const what =
          flag === '--memory'
            ? 'megabytes'
            : flag === '--cpu' || flag === '--wall'
              ? 'seconds'
              : 'a count';
        policy.limits[limitFlag[flag]!] = positiveInt(flag, value, what);
        break;
      }
      case '--hide':
      case '--unhide': {
        [value, i] = takeValue(flag, inline, args, i);
        const path = hiddenPathFlag(flag, value);
        const guards = (policy.guards ??= { hide: [], unhide: [] });
        const [add, drop] =
          flag === '--hide' ? [guards.hide, guards.unhide] : [guards.unhide, guards.hide];
        if (!add.includes(path)) add.push(path);
        if (drop.includes(path)) drop.splice(drop.indexOf(path), 1);
        break;
      }
      case '--best-effort': {
        [value, i] = takeValue(flag, inline, args, i);
        const name = bestEffortNames[value];
        if (!name)
          throw new UsageError(
            `${flag}: expected one of ${Object.keys(bestEffortNames).join(', ')}, got "${value}"`,
          );
        if (!policy.limits.bestEffort.includes(name)) policy.limits.bestEffort.push(name);
        break;
      }
      default:
        rest.push(token);
    }
  }
  return { policy, rest };
}

/** True when every name in limitNames has a flag (kept in step with the schema). */
export const policyFlagsCoverLimits = limitNames.every((n) => Object.values(limitFlag).includes(n));

/**
 * A hidden-path flag value as the guards spell it: a path below the home (which the shell has
 * usually expanded from `~/`) becomes `~/…` again, so that it names the inherited entry.
 */
export function hiddenPathFlag(
  flag: string,
  value: string,
  home: string | undefined = process.env.HOME,
): string {
  let path = value.trim().replace(/(.)\/+$/, '$1');
  const base = home?.replace(/\/+$/, '');
  if (base && base !== '' && path.startsWith(`${base}/`)) path = `~/${path.slice(base.length + 1)}`;
  const checked = hiddenPathSchema.safeParse(path);
  if (!checked.success)
    throw new UsageError(
      `${flag}: ${checked.error.issues[0]?.message ?? 'invalid'}, got "${value}"`,
    );
  return path;
}
