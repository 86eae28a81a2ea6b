/**
 * `warden servers edit` flags: the policy flags add (roots, destinations, variables) or replace
 * (isolation, network mode, limits), and removal flags take away. A removal of something the
 * policy does not have is a usage error, so that a typo never passes for a change.
 */
import { resolve } from 'node:path';
import { argRuleText } from '../../app/policy/arg-rules';
import type { LimitName, Policy } from '../../app/policy/policy-schema';
import { UsageError } from './cli-io';
import { EDIT_FLAGS } from './flag-specs';
import { parsePolicyFlags } from './policy-flags';

export { EDIT_FLAGS };

const limitOf: Record<string, LimitName> = {
  memory: 'memoryMb',
  pids: 'pids',
  cpu: 'cpuSeconds',
  files: 'openFiles',
  wall: 'wallSeconds',
};

function takeOut(list: string[], value: string, flag: string, what: string): void {
  const at = list.indexOf(value);
  if (at < 0)
    throw new UsageError(
      `${flag}: "${value}" is not ${what} (now: ${list.length ? list.join(', ') : 'none'})`,
    );
  list.splice(at, 1);
}

function limitArg(flag: string, value: string): LimitName {
  const name = limitOf[value];
  if (!name)
    throw new UsageError(
      `${flag}: expected one of ${Object.keys(limitOf).join(', ')}, got "${value}"`,
    );
  return name;
}

function applyRemoval(policy: Policy, flag: string, value: string, cwd: string): void {
  const net = policy.network;
  switch (flag) {
    case '--remove-root': {
      const path = resolve(cwd, value);
      const roots = policy.filesystem.roots;
      if (!roots.some((r) => r.path === path))
        throw new UsageError(
          `${flag}: "${path}" is not a root (now: ${roots.map((r) => r.path).join(', ') || 'none'})`,
        );
      policy.filesystem.roots = roots.filter((r) => r.path !== path);
      return;
    }
    case '--remove-allow':
      return takeOut(net.allow, value, flag, 'an allowed destination');
    case '--remove-deny':
      return takeOut(net.deny, value, flag, 'a refused destination');
    case '--remove-allow-address':
      return takeOut(net.allowAddresses, value, flag, 'an allowed address');
    case '--remove-env': {
      const passed = policy.env.pass.includes(value);
      if (!passed && !(value in policy.env.set))
        throw new UsageError(`${flag}: "${value}" is neither passed nor set`);
      policy.env.pass = policy.env.pass.filter((n) => n !== value);
      delete policy.env.set[value];
      return;
    }
    case '--remove-arg-rule': {
      const rules = policy.tools.argRules ?? [];
      const texts = rules.map(argRuleText);
      takeOut(texts, value, flag, 'an argument rule');
      policy.tools.argRules = rules.filter((r) => argRuleText(r) !== value);
      return;
    }
    case '--enable-tool':
      return takeOut(policy.tools.disabled, value, flag, 'a disabled tool');
    case '--no-require-approval':
      return takeOut(policy.tools.approval, value, flag, 'a tool that asks before each call');
    case '--no-limit': {
      const name = limitArg(flag, value);
      if (policy.limits[name] === undefined)
        throw new UsageError(`${flag}: no ${value} limit is set`);
      delete policy.limits[name];
      policy.limits.bestEffort = policy.limits.bestEffort.filter((n) => n !== name);
      return;
    }
    case '--no-best-effort': {
      const name = limitArg(flag, value);
      if (!policy.limits.bestEffort.includes(name))
        throw new UsageError(`${flag}: the ${value} limit is not best effort`);
      policy.limits.bestEffort = policy.limits.bestEffort.filter((n) => n !== name);
      return;
    }
  }
}

const unique = (list: string[]) => [...new Set(list)];

/**
 * Applies `servers edit` flags to a copy of `base`: removals first, then the policy flags, so that
 * `--remove-root P --rw P` changes a root's access. Tokens that are neither are returned in
 * `rest`. Throws UsageError.
 */
export function applyPolicyEdit(
  args: readonly string[],
  base: Policy,
  cwd: string = process.cwd(),
): { policy: Policy; rest: string[]; flagCount: number } {
  const policy = structuredClone(base);
  const others: string[] = [];
  let flagCount = 0;
  const removals = new Set(EDIT_FLAGS.map((f) => f.name));
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const flag = eq > 0 ? token.slice(0, eq) : token;
    if (!removals.has(flag)) {
      others.push(token);
      continue;
    }
    const value = eq > 0 ? token.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag}: needs a value`);
    applyRemoval(policy, flag, value, cwd);
    flagCount++;
  }
  const added = parsePolicyFlags(others, policy, cwd);
  flagCount += others.length - added.rest.length;
  const p = added.policy;
  // A root named again replaces the earlier one (its access changes); lists keep one of each.
  const byPath = new Map(p.filesystem.roots.map((r) => [r.path, r]));
  p.filesystem.roots = [...byPath.values()];
  p.network.allow = unique(p.network.allow);
  p.network.deny = unique(p.network.deny);
  p.network.allowAddresses = unique(p.network.allowAddresses);
  p.env.pass = unique(p.env.pass);
  return { policy: p, rest: added.rest, flagCount };
}
