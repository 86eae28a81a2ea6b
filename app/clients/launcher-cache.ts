/**
 * The cache folders of a launcher preset (npx, uvx, pip…) for a server added by hand, as import
 * grants them: each folder the preset names for its package cache, writable, and the variable
 * that points the launcher at it (inside the sandbox HOME is empty, so the launcher would
 * otherwise download the package again at every start). Nothing else of the preset (network,
 * other folders) is granted: what the user chose in the Add form stays as chosen.
 */
import type { LaunchSpec, Policy } from '../policy/policy-schema';
import { type PresetPlaces, proposePolicy } from './propose-policy';
import { type PresetCatalogue, matchLauncher } from './preset-types';

export interface LauncherCaches {
  policy: Policy;
  /** The cache folders granted by this call (the caller creates those that do not exist). */
  granted: string[];
}

/** `policy` with the launcher's cache folders and variables added where it has neither. */
export function withLauncherCaches(
  launch: LaunchSpec,
  policy: Policy,
  catalogue: PresetCatalogue,
  places: PresetPlaces,
): LauncherCaches {
  const launcher = matchLauncher(catalogue, launch.command, launch.args);
  if (!launcher || policy.isolation !== 'sandbox') return { policy, granted: [] };
  const proposal = proposePolicy(launch, {}, catalogue, places);
  const caches = proposal.roots.filter(
    (r) => r.from === launcher.preset.id && r.access === 'write',
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
  return { policy: next, granted };
}
