/**
 * Every edit Warden makes to a policy, in one place and pure: each takes a policy and answers a
 * new one, leaving the input untouched. The core applies them through the config store, which
 * validates the result and bumps the revision.
 */
import type { Policy, Root, ToolDefinition } from './policy-schema';

/** Which network list a pattern goes to. */
export type PatternList = 'allow' | 'deny';

/** A grant decision to keep: the pattern and the list it belongs in. */
export interface GrantRule {
  list: PatternList;
  pattern: string;
}

/** Adds a filesystem root, or changes the access of the root already at that path. */
export function addRoot(policy: Policy, root: Root): Policy {
  const roots = policy.filesystem.roots.filter((r) => r.path !== root.path);
  return { ...policy, filesystem: { ...policy.filesystem, roots: [...roots, { ...root }] } };
}

/** Removes the filesystem root at `path` (nothing when there is none). */
export function removeRoot(policy: Policy, path: string): Policy {
  const roots = policy.filesystem.roots.filter((r) => r.path !== path);
  return { ...policy, filesystem: { ...policy.filesystem, roots } };
}

/** Adds a destination pattern to a list, once. */
export function addPattern(policy: Policy, list: PatternList, pattern: string): Policy {
  const current = policy.network[list];
  if (current.includes(pattern)) return policy;
  return { ...policy, network: { ...policy.network, [list]: [...current, pattern] } };
}

/** Removes a destination pattern from a list (nothing when it is not there). */
export function removePattern(policy: Policy, list: PatternList, pattern: string): Policy {
  const kept = policy.network[list].filter((p) => p !== pattern);
  return { ...policy, network: { ...policy.network, [list]: kept } };
}

/**
 * Keeps an "always allow" or "always deny" decision: the pattern joins its list and leaves the
 * other one, so the latest choice is the one that holds.
 */
export function persistGrant(policy: Policy, rule: GrantRule): Policy {
  const other: PatternList = rule.list === 'allow' ? 'deny' : 'allow';
  return addPattern(removePattern(policy, other, rule.pattern), rule.list, rule.pattern);
}

/** Pins tool definitions (first sight, or a change the user accepted), replacing older pins. */
export function pinTools(policy: Policy, definitions: Record<string, ToolDefinition>): Policy {
  const pinned = { ...policy.tools.pinned, ...definitions };
  return { ...policy, tools: { ...policy.tools, pinned } };
}

/** The reference under which a server's secret variable is stored. */
export function secretRef(server: string, variable: string): string {
  return `${server}/${variable}`;
}

/** Makes `variable` take its value from the stored secret `ref` instead of a plain value. */
export function setSecretRef(policy: Policy, variable: string, ref: string): Policy {
  const set = { ...policy.env.set, [variable]: { kind: 'secret' as const, ref } };
  return { ...policy, env: { ...policy.env, set } };
}
