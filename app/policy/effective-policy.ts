/**
 * One effective policy: the managed layer, the inherited guards (the global part) and the
 * server's own policy combined into what a launch enforces, with the layer each line comes from.
 * The managed layer wins over everything; a server can narrow the guards, and un-hide an
 * inherited path only by naming it as an exception.
 */
import { protectedWorkspaceNames } from './workspace-files';
import { type Result, err, ok } from '../result';
import { type GuardLimits, globalGuards, inheritedHiddenPaths, serverHiddenPaths } from './guards';
import type { Policy } from './policy-schema';
import { type LimitName, limitNames } from './limit-names';
import { DEFAULT_LIMITS } from './defaults';
import {
  type GuardLayers,
  type ManagedRefusal,
  bestEffortRefusal,
  destinationRefusal,
  isolationOffRefusal,
  limitRefusal,
  unhideRefusal,
  unprotectRefusal,
} from './managed-rules';

export type { GuardLayers, ManagedRefusal } from './managed-rules';

export type PolicyLayer = 'managed' | 'global' | 'server' | 'default';

/** One line of `servers show --effective`: a setting, its value and the layer it comes from. */
export interface EffectiveLine {
  field: string;
  value: string;
  layer: PolicyLayer;
  /** An inherited guard this server is excepted from (shown in red). */
  exception?: boolean;
}

/**
 * What the layers forbid in a server's own policy: isolation off, best-effort limits, an allowed
 * destination a managed deny covers or an allowlist leaves out, a limit above a managed maximum,
 * un-hiding a managed hidden path, a workspace file exception where none is allowed. Used when a policy is saved and again at every launch.
 */
export function checkPolicyAllowed(
  policy: Policy,
  layers: GuardLayers,
): ManagedRefusal | undefined {
  if (policy.isolation === 'off') {
    const off = isolationOffRefusal(layers);
    if (off) return off;
  }
  const checks = [
    () => bestEffortRefusal(policy.limits.bestEffort, layers),
    ...policy.network.allow.map((a) => () => destinationRefusal(a, layers)),
    ...limitNames.map((name) => () => limitRefusal(name, policy.limits[name], layers)),
    ...(policy.guards?.unhide ?? []).map((p) => () => unhideRefusal(p, layers)),
    ...(policy.guards?.unprotect?.length ? [() => unprotectRefusal(layers)] : []),
  ];
  for (const check of checks) {
    const refused = check();
    if (refused) return refused;
  }
  return undefined;
}

/** The limits that apply: the server's, else the global part's, each capped by the managed one. */
function effectiveLimitValues(policy: Policy, layers: GuardLayers) {
  const out: Partial<Record<LimitName, { value: number; layer: PolicyLayer }>> = {};
  const global: GuardLimits = layers.global?.limits ?? {};
  const managed: GuardLimits = layers.managed?.limits ?? {};
  for (const name of limitNames) {
    const own = policy.limits[name];
    let chosen: { value: number; layer: PolicyLayer } | undefined =
      own !== undefined
        ? { value: own, layer: 'server' }
        : global[name] !== undefined
          ? { value: global[name], layer: 'global' }
          : undefined;
    const max = managed[name];
    const fallback = DEFAULT_LIMITS[name];
    if (max !== undefined && (chosen ?? { value: fallback ?? Infinity }).value > max) {
      chosen = { value: max, layer: 'managed' };
    }
    if (chosen) out[name] = chosen;
  }
  return out;
}

/**
 * The policy a launch enforces, or the managed rule that refuses it. Its `guards.hide` is the
 * complete list of hidden paths (and `unhide` is empty): backends mask exactly that list.
 */
export function effectivePolicy(
  policy: Policy,
  layers: GuardLayers,
): Result<{ policy: Policy; lines: EffectiveLine[] }, ManagedRefusal> {
  const refused = checkPolicyAllowed(policy, layers);
  if (refused) return err(refused);
  const global = globalGuards(layers.global);
  const managed = layers.managed ?? {};
  const lines: EffectiveLine[] = [];
  const line = (field: string, value: string, layer: PolicyLayer, exception?: boolean) =>
    lines.push({ field, value, layer, ...(exception ? { exception } : {}) });

  line('isolation', policy.isolation, 'server');
  for (const root of policy.filesystem.roots)
    line('root', `${root.path} (${root.access})`, 'server');
  const managedHidden = managed.hiddenPaths ?? [];
  const hide = serverHiddenPaths(global.hiddenPaths, managedHidden, policy.guards);
  const inherited = new Map(
    inheritedHiddenPaths(layers.global, layers.managed).map((h) => [h.path, h.layer]),
  );
  for (const p of hide) line('hidden', p, inherited.get(p) ?? 'server');
  for (const p of policy.guards?.unhide ?? []) {
    if (global.hiddenPaths.includes(p)) line('shown (exception)', p, 'server', true);
  }
  if (policy.filesystem.roots.some((r) => r.access === 'write')) {
    const unprotect = policy.guards?.unprotect ?? [];
    const kept = protectedWorkspaceNames(unprotect);
    if (kept.length > 0) line('read-only', `${kept.join(', ')} (in writable folders)`, 'default');
    for (const n of unprotect) line('write (exception)', n, 'server', true);
  }
  const deny = [
    ...(managed.network?.deny ?? []).map((d) => ({ d, layer: 'managed' as const })),
    ...global.network.deny.map((d) => ({ d, layer: 'global' as const })),
    ...policy.network.deny.map((d) => ({ d, layer: 'server' as const })),
  ];
  const denyList = [...new Set(deny.map((x) => x.d))];
  line('network', policy.network.mode, 'server');
  for (const a of policy.network.allow) line('allow', a, 'server');
  for (const x of deny) line('deny', x.d, x.layer);
  const within = withinLists(layers);
  for (const w of within) line('allowed only', w.allow.join(', ') || '(nothing)', w.layer);
  const limits = { ...policy.limits, bestEffort: [...policy.limits.bestEffort] };
  for (const [name, chosen] of Object.entries(effectiveLimitValues(policy, layers))) {
    limits[name as LimitName] = chosen.value;
    line(`limit ${name}`, String(chosen.value), chosen.layer);
  }
  return ok({
    policy: {
      ...policy,
      network: { ...policy.network, deny: denyList, ...(within.length > 0 ? { within } : {}) },
      limits,
      guards: {
        hide,
        unhide: [],
        ...(policy.guards?.unprotect && { unprotect: [...policy.guards.unprotect] }),
      },
    },
    lines,
  });
}

/** The allowlists of the layers: a destination must match a pattern of each (the broker's check). */
function withinLists(layers: GuardLayers): { layer: 'managed' | 'global'; allow: string[] }[] {
  const out: { layer: 'managed' | 'global'; allow: string[] }[] = [];
  if (layers.managed?.network?.allow)
    out.push({ layer: 'managed', allow: [...layers.managed.network.allow] });
  if (layers.global?.network?.allow)
    out.push({ layer: 'global', allow: [...layers.global.network.allow] });
  return out;
}

/** The hidden paths a backend masks for a policy: the effective list, or the defaults. */
export function hiddenPathsOf(policy: Policy): string[] {
  return policy.guards
    ? serverHiddenPaths([], [], policy.guards)
    : [...globalGuards(undefined).hiddenPaths];
}
