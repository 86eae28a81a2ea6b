/**
 * One effective policy: the managed layer, the inherited guards (the global part) and the
 * server's own policy combined into what a launch enforces, with the layer each line comes from.
 * The managed layer wins over everything; a server can narrow the guards, and un-hide an
 * inherited path only by naming it as an exception.
 */
import { type Result, err, ok } from '../result';
import { type GuardLimits, type Guards, globalGuards, serverHiddenPaths } from './guards';
import { type LimitName, type Policy, limitNames } from './policy-schema';
import { DEFAULT_LIMITS } from './defaults';
import { managedAllowConflicts } from './managed-rules';

export type PolicyLayer = 'managed' | 'global' | 'server' | 'default';

/** One line of `servers show --effective`: a setting, its value and the layer it comes from. */
export interface EffectiveLine {
  field: string;
  value: string;
  layer: PolicyLayer;
  /** An inherited guard this server is excepted from (shown in red). */
  exception?: boolean;
}

/** A change or launch the managed layer forbids, naming its rule. */
export interface ManagedRefusal {
  kind: 'managed-policy';
  /** The managed rule, e.g. `isolation.allowOff=false` or `network.deny "*.blocked.test"`. */
  rule: string;
  message: string;
  remedy: string;
}

/** The guard layers as loaded: the stored global part and the managed file (if any). */
export interface GuardLayers {
  global: Guards | undefined;
  managed: Guards | undefined;
}

const refusal = (rule: string, message: string, remedy: string): ManagedRefusal => ({
  kind: 'managed-policy',
  rule,
  message,
  remedy,
});

/**
 * What the managed layer (and the global part's `allowOff`) forbids in a server's own policy:
 * isolation off, an allowed destination a managed deny covers, a limit above a managed maximum,
 * un-hiding a managed hidden path. Used when a policy is saved and again at every launch.
 */
export function checkPolicyAllowed(
  policy: Policy,
  layers: GuardLayers,
): ManagedRefusal | undefined {
  const managed = layers.managed ?? {};
  if (policy.isolation === 'off' && managed.isolation?.allowOff === false) {
    return refusal(
      'managed isolation.allowOff=false',
      'the managed policy forbids isolation off',
      'keep the server sandboxed; only the machine administrator can change the managed policy',
    );
  }
  if (policy.isolation === 'off' && layers.global?.isolation?.allowOff === false) {
    return refusal(
      'global isolation.allowOff=false',
      'the global policy forbids isolation off',
      'keep the server sandboxed, or allow it with `warden policy edit --allow-off yes`',
    );
  }
  const conflict = managedAllowConflicts(policy.network.allow, managed.network?.deny ?? []);
  if (conflict) {
    return refusal(
      `managed network.deny "${conflict.deny}"`,
      `the managed policy denies ${conflict.deny}, which covers the allowed "${conflict.allow}"`,
      'remove that destination; only the machine administrator can change the managed policy',
    );
  }
  for (const name of limitNames) {
    const max = managed.limits?.[name];
    const own = policy.limits[name];
    if (max !== undefined && own !== undefined && own > max) {
      return refusal(
        `managed limits.${name}=${max}`,
        `the managed policy allows at most ${max} for ${name}, not ${own}`,
        `set ${name} to ${max} or less`,
      );
    }
  }
  const locked = (policy.guards?.unhide ?? []).find((p) => managed.hiddenPaths?.includes(p));
  if (locked) {
    return refusal(
      `managed hiddenPaths "${locked}"`,
      `the managed policy hides ${locked}; no server may see it`,
      'remove the exception',
    );
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
  for (const p of hide) {
    const layer = managedHidden.includes(p)
      ? 'managed'
      : global.hiddenPaths.includes(p)
        ? layers.global?.hiddenPaths
          ? 'global'
          : 'default'
        : 'server';
    line('hidden', p, layer);
  }
  for (const p of policy.guards?.unhide ?? []) {
    if (global.hiddenPaths.includes(p)) line('shown (exception)', p, 'server', true);
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
  const limits = { ...policy.limits, bestEffort: [...policy.limits.bestEffort] };
  for (const [name, chosen] of Object.entries(effectiveLimitValues(policy, layers))) {
    limits[name as LimitName] = chosen.value;
    line(`limit ${name}`, String(chosen.value), chosen.layer);
  }
  return ok({
    policy: {
      ...policy,
      network: { ...policy.network, deny: denyList },
      limits,
      guards: { hide, unhide: [] },
    },
    lines,
  });
}

/** The hidden paths a backend masks for a policy: the effective list, or the defaults. */
export function hiddenPathsOf(policy: Policy): string[] {
  return policy.guards
    ? serverHiddenPaths([], [], policy.guards)
    : [...globalGuards(undefined).hiddenPaths];
}
