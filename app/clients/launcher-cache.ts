/**
 * The cache folders of a launcher preset (npx, uvx, pip…) for a server added by hand, as import
 * grants them: each folder the preset names for its package cache, writable, and the variable
 * that points the launcher at it (inside the sandbox HOME is empty, so the launcher would
 * otherwise download the package again at every start). A well-known server's argument rules
 * (e.g. the filesystem server's paths within its folders) are added when the user set none; they
 * only narrow what the server may be asked. The user's own npm settings that npm inside the
 * sandbox cannot read (`npmrcEnv`) are set as variables where the policy has neither. Nothing else
 * of the presets (network, other folders) is granted: what the user chose in the Add form stays
 * as chosen, and a cache folder the user's own value of the variable points away from is not
 * granted at all.
 */
import { type ArgRule, argRuleText } from '../policy/arg-rules';
import type { LaunchSpec, Policy } from '../policy/policy-schema';
import { type PresetPlaces, proposePolicy } from './propose-policy';
import { type PresetCatalogue, matchLauncher } from './preset-types';

export interface LauncherCaches {
  policy: Policy;
  /** The cache folders granted by this call (the caller creates those that do not exist). */
  granted: string[];
  /** The argument rules added from a well-known server's preset, as TOOL:ARG:RULE. */
  argRules: string[];
}

/**
 * `policy` with the launcher's cache folders and variables added where it has neither, and the
 * well-known server's argument rules where it has none.
 */
export function withLauncherCaches(
  launch: LaunchSpec,
  original: Policy,
  catalogue: PresetCatalogue,
  places: PresetPlaces,
): LauncherCaches {
  let policy = original;
  const launcher = matchLauncher(catalogue, launch.command, launch.args);
  if (!launcher) return { policy, granted: [], argRules: [] };
  const proposal = proposePolicy(launch, {}, catalogue, places);
  const withRules = withPresetRules(policy, proposal.policy.tools.argRules ?? []);
  if (policy.isolation !== 'sandbox')
    return { policy: withRules, granted: [], argRules: presetRuleTexts(policy, withRules) };
  policy = withRules;
  // A folder the policy's own value of the launcher's variable points away from goes unused.
  const unused = new Set<string>();
  for (const name of Object.keys(launcher.preset.env)) {
    const proposed = proposal.policy.env.set[name];
    const own = policy.env.set[name];
    if (
      proposed?.kind === 'plain' &&
      own &&
      !(own.kind === 'plain' && own.value === proposed.value)
    )
      unused.add(proposed.value);
  }
  const caches = proposal.roots.filter(
    (r) => r.from === launcher.preset.id && r.access === 'write' && !unused.has(r.path),
  );
  const next: Policy = {
    ...policy,
    filesystem: { ...policy.filesystem, roots: [...policy.filesystem.roots] },
    env: { ...policy.env, set: { ...policy.env.set } },
  };
  const granted: string[] = [];
  for (const cache of caches) {
    if (next.filesystem.roots.some((r) => r.path === cache.path)) continue;
    next.filesystem.roots.push({ path: cache.path, access: 'write' });
    granted.push(cache.path);
  }
  for (const name of Object.keys(launcher.preset.env)) {
    const value = proposal.policy.env.set[name];
    const folder = value?.kind === 'plain' ? value.value : undefined;
    const writable = next.filesystem.roots.some(
      (r) => r.access === 'write' && (folder === r.path || folder?.startsWith(`${r.path}/`)),
    );
    if (value && writable && !(name in next.env.set) && !next.env.pass.includes(name))
      next.env.set[name] = value;
  }
  // The user's own npm settings, which npm inside the sandbox cannot read from their npm config.
  for (const name of Object.keys(launcher.preset.npmrcEnv)) {
    const value = proposal.policy.env.set[name];
    if (value && !(name in next.env.set) && !next.env.pass.includes(name))
      next.env.set[name] = value;
  }
  return { policy: next, granted, argRules: presetRuleTexts(original, next) };
}

/** `policy` with the preset's rules when it has none of its own. */
function withPresetRules(policy: Policy, rules: readonly ArgRule[]): Policy {
  if (rules.length === 0 || (policy.tools.argRules?.length ?? 0) > 0) return policy;
  return { ...policy, tools: { ...policy.tools, argRules: rules.map((r) => ({ ...r })) } };
}

function presetRuleTexts(before: Policy, after: Policy): string[] {
  return before.tools.argRules === after.tools.argRules
    ? []
    : (after.tools.argRules ?? []).map(argRuleText);
}
