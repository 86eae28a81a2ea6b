/**
 * Which folders a grant may never bind, checked before a person is asked: a folder inside a hidden
 * path of the server's effective policy (the managed layer's and the global part's included), in
 * Warden's own state, or one the sandbox keeps for itself. The launch would refuse the first and
 * mask the second; asking would only offer a choice that cannot be honoured.
 */
import { resolve } from 'node:path';
import { hiddenPathsOf } from '../../app/policy/effective-policy';
import { expandHome, isNamePattern } from '../../app/policy/guards';
import type { Policy } from '../../app/policy/policy-schema';
import type { Result } from '../../app/result';
import { RESERVED } from '../sandbox/linux/filesystem-view';
import { isWithin } from './roots-paths';

/** Folders below which nothing is bound from the host. */
const KERNEL_VIEWS = ['/proc', '/sys', '/dev'];

/** Why `path` (a real path) may not be granted under `policy` (an effective one), if so. */
export function folderRefusal(
  path: string,
  policy: Policy,
  facts: { home: string | undefined; wardenHome: string },
): string | undefined {
  if (RESERVED.includes(path)) return `${path} is the sandbox's own`;
  const system = KERNEL_VIEWS.find((v) => isWithin(path, v));
  if (system) return `${path} lies in ${system}`;
  const state = resolve(facts.wardenHome);
  if (isWithin(path, state)) return `${path} lies in Warden's own state`;
  for (const entry of hiddenPathsOf(policy)) {
    if (isNamePattern(entry)) continue;
    const expanded = expandHome(entry, facts.home);
    if (expanded !== undefined && isWithin(path, resolve(expanded)))
      return `${path} lies in the hidden path ${entry}`;
  }
  return undefined;
}

/**
 * The check the core gives each session: the server's effective policy (stored policy with the
 * layers applied) read at the time of asking; a layer that cannot be read refuses.
 */
export function folderGuard(deps: {
  effective: (policy: Policy) => Promise<Result<Policy, { message: string }>>;
  policy: () => Policy | undefined;
  home: string | undefined;
  wardenHome: string;
}): (path: string) => Promise<string | undefined> {
  return async (path) => {
    const policy = deps.policy();
    if (!policy) return 'the server no longer exists';
    const effective = await deps.effective(policy);
    if (!effective.ok) return effective.error.message;
    return folderRefusal(path, effective.value, deps);
  };
}
