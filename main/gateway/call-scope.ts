/**
 * What the argument rules check a call against: the server's policy as the sandbox enforces it,
 * combined with the managed and global layers (their network lists and hidden paths). Worked out
 * again only when the policy or the layers change.
 */
import type { ArgScope, ArgVerdict } from '../../app/policy/arg-check';
import { effectivePolicy, hiddenPathsOf } from '../../app/policy/effective-policy';
import { expandHome, isNamePattern, nameMatcher } from '../../app/policy/guards';
import type { GuardLayers } from '../../app/policy/managed-rules';
import { compileRules } from '../../app/policy/network-patterns';
import type { Policy } from '../../app/policy/policy-schema';
import { type Result, err, ok } from '../../app/result';

const NO_LAYERS: GuardLayers = { global: undefined, managed: undefined };

/**
 * The scope of a policy under the layers (none: the default guards). Always through
 * effectivePolicy: a stored policy's guards hold only its own changes, not the hidden paths.
 */
export function argScopeCache(
  home: string | undefined,
): (policy: Policy, layers: GuardLayers | undefined) => Result<ArgScope, string> {
  let last: { policy: Policy; layers?: GuardLayers; scope: Result<ArgScope, string> } | undefined;
  return (policy, layers) => {
    if (last?.policy === policy && last.layers === layers) return last.scope;
    let scope: Result<ArgScope, string>;
    const effective = effectivePolicy(policy, layers ?? NO_LAYERS);
    if (!effective.ok) scope = err(effective.error.message);
    else {
      const enforced = effective.value.policy;
      const network = compileRules(enforced.network);
      const hidden = hiddenPathsOf(enforced);
      scope = ok({
        roots: enforced.filesystem.roots.map((r) => r.path),
        network: { mode: enforced.network.mode, rules: network.ok ? network.value : undefined },
        hidden: {
          paths: hidden.filter((h) => !isNamePattern(h)).flatMap((h) => expandHome(h, home) ?? []),
          names: nameMatcher(hidden.filter(isNamePattern)),
        },
      });
    }
    last = { policy, ...(layers ? { layers } : {}), scope };
    return scope;
  };
}

/** While the layers cannot be read, a call that a rule applies to is refused by that rule. */
export function unusableLayers(
  rules: NonNullable<Policy['tools']['argRules']>,
  tool: string,
  problem: string,
): ArgVerdict {
  const rule = rules.find((r) => r.tool === '*' || r.tool === tool);
  return rule
    ? { ok: false, refusal: { rule, reason: `the guard layers do not allow it: ${problem}` } }
    : { ok: true };
}
