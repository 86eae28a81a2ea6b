/**
 * Every edit Warden makes to a policy, in one place and pure: each takes a policy and answers a
 * new one, leaving the input untouched. The core applies them through the config store, which
 * validates the result and bumps the revision.
 */
import type { ServerGuards } from './guards';
import type { Policy, Root, ToolDefinition } from './policy-schema';
import type { WorkspaceName } from './workspace-files';

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

/** `policy` without the pinned definition of `tool`: its next listing is pinned anew. */
export function unpinTool(policy: Policy, tool: string): Policy {
  const { [tool]: _forgotten, ...pinned } = policy.tools.pinned;
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

/**
 * A server's own guards with empty lists left out, and none at all when nothing is left: adding an
 * exception and taking it back gives the policy it started from.
 */
export function trimGuards(guards: ServerGuards | undefined): ServerGuards | undefined {
  const { hide = [], unhide = [], unprotect = [] } = guards ?? {};
  if (hide.length + unhide.length + unprotect.length === 0) return undefined;
  return { hide, unhide, ...(unprotect.length > 0 ? { unprotect } : {}) };
}

function withGuards(policy: Policy, guards: ServerGuards | undefined): Policy {
  const { guards: _old, ...rest } = policy;
  const trimmed = trimGuards(guards);
  return trimmed ? { ...rest, guards: trimmed } : rest;
}

const without = <T>(list: readonly T[] | undefined, value: T) =>
  (list ?? []).filter((x) => x !== value);

/** Hides `path` from this server beyond the inherited guards (and drops an exception for it). */
export function hidePath(policy: Policy, path: string): Policy {
  const g = policy.guards;
  const hide = [...without(g?.hide, path), path];
  return withGuards(policy, { ...g, hide, unhide: without(g?.unhide, path) });
}

/**
 * Hides exactly `paths` from this server beyond the inherited guards (each drops an exception
 * for the same path); a path left out of the list is no longer hidden by the server's own rule.
 */
export function setOwnHiddenPaths(policy: Policy, paths: readonly string[]): Policy {
  const g = policy.guards;
  const hide = [...new Set(paths)];
  return withGuards(policy, {
    ...g,
    hide,
    unhide: (g?.unhide ?? []).filter((p) => !hide.includes(p)),
  });
}

/**
 * Lets this server see the inherited hidden path `path` (an exception, shown in red), or takes
 * that exception back. The managed layer's paths stay hidden whatever this says (managed-rules).
 */
export function exceptHiddenPath(policy: Policy, path: string, shown: boolean): Policy {
  const g = policy.guards;
  const unhide = shown ? [...without(g?.unhide, path), path] : without(g?.unhide, path);
  const hide = shown ? without(g?.hide, path) : (g?.hide ?? []);
  return withGuards(policy, { ...g, hide, unhide });
}

/**
 * Lets this server write the workspace file `name` in its writable folders (an exception, shown
 * in red), or keeps it read-only there again.
 */
export function exceptWorkspaceFile(
  policy: Policy,
  name: WorkspaceName,
  writable: boolean,
): Policy {
  const g = policy.guards;
  const kept = without(g?.unprotect, name);
  return withGuards(policy, {
    hide: g?.hide ?? [],
    unhide: g?.unhide ?? [],
    unprotect: writable ? [...kept, name] : kept,
  });
}
