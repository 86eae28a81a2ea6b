/**
 * Policy flags shared by every subcommand that takes a policy (`servers add`, `exec`, …). Each
 * bad flag or value is a UsageError naming the flag and what it accepts.
 */
import { WORKSPACE_NAMES, isWorkspaceName } from '../../app/policy/workspace-files';
import { resolve } from 'node:path';
import { type LimitName, type Policy, envNameSchema } from '../../app/policy/policy-schema';
import { argRuleText, parseArgRuleFlag } from '../../app/policy/arg-rules';
import { exceptHiddenPath, exceptWorkspaceFile, hidePath } from '../../app/policy/policy-edits';
import { hiddenPathSchema } from '../../app/policy/guards-schema';
import { UsageError } from './cli-io';
import { type FlagSpec, POLICY_FLAGS, flagLines } from './flag-specs';

export { type FlagSpec, POLICY_FLAGS, flagLines };

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

/** Takes the guards of `edited` (the shared edits of policy-edits.ts) into `policy`. */
function takeGuards(policy: Policy, edited: Policy): void {
  if (edited.guards) policy.guards = edited.guards;
  else delete policy.guards;
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
        takeGuards(
          policy,
          flag === '--hide' ? hidePath(policy, path) : exceptHiddenPath(policy, path, true),
        );
        break;
      }
      case '--protect':
      case '--unprotect': {
        [value, i] = takeValue(flag, inline, args, i);
        if (!isWorkspaceName(value))
          throw new UsageError(
            `${flag}: expected a workspace file name (${WORKSPACE_NAMES.join(', ')}), got "${value}"`,
          );
        takeGuards(policy, exceptWorkspaceFile(policy, value, flag === '--unprotect'));
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
      case '--arg-rule': {
        [value, i] = takeValue(flag, inline, args, i);
        const rule = parseArgRuleFlag(value);
        if (!rule.ok) throw new UsageError(`${flag}: ${rule.error}, got "${value}"`);
        const rules = (policy.tools.argRules ??= []);
        if (!rules.some((r) => argRuleText(r) === argRuleText(rule.value))) rules.push(rule.value);
        break;
      }
      case '--disable-tool':
      case '--require-approval': {
        [value, i] = takeValue(flag, inline, args, i);
        const list = flag === '--disable-tool' ? policy.tools.disabled : policy.tools.approval;
        if (!list.includes(toolNameFlag(flag, value))) list.push(value);
        break;
      }
      case '--credentials':
        [value, i] = takeValue(flag, inline, args, i);
        policy.tools.credentials = oneOf(flag, value, ['redact', 'block', 'ask', 'off'] as const);
        break;
      default:
        rest.push(token);
    }
  }
  return { policy, rest };
}

/** A tool named by a flag: as MCP names tools, 1 to 128 characters, none of them a space. */
export function toolNameFlag(flag: string, value: string): string {
  if (!/^\S{1,128}$/u.test(value))
    throw new UsageError(
      `${flag}: expected a tool name (1 to 128 characters, no spaces), got "${value}"`,
    );
  return value;
}

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
