/**
 * `--unhide PATH` shows an inherited hidden path to one server, or takes back that server's own
 * `--hide PATH`. Any other PATH would change nothing (a typo such as `~/.shh`, or `~/ssh`), and a
 * user would believe the path shown: it is refused, naming the hidden paths there are. A `--hide`
 * taken back leaves no exception behind, which would show the path to this server should it later
 * become an inherited hidden path.
 */
import type { PolicyView } from '../../app/contract/policy';
import { inheritedHiddenPaths } from '../../app/policy/guards';
import { trimGuards } from '../../app/policy/policy-edits';
import type { Policy } from '../../app/policy/policy-schema';
import { UsageError } from './cli-io';

/**
 * `after` (the flags applied to `before`) with each new `--unhide` checked against `inherited`,
 * the hidden paths a server inherits (the managed layer's and the global ones, defaults filled
 * in). Throws UsageError.
 */
export function settleUnhides(before: Policy, after: Policy, inherited: readonly string[]): Policy {
  const had = new Set(before.guards?.unhide ?? []);
  const own = new Set(before.guards?.hide ?? []);
  const known = new Set(inherited);
  const undone: string[] = [];
  for (const path of after.guards?.unhide ?? []) {
    if (had.has(path) || known.has(path)) continue;
    if (!own.has(path))
      throw new UsageError(
        `--unhide: nothing hides "${path}", so it would change nothing; the hidden paths a server inherits are ${[...known].join(', ') || 'none'} (warden policy show)`,
      );
    undone.push(path);
  }
  if (undone.length === 0) return after;
  const { guards, ...rest } = after;
  const trimmed = trimGuards({
    hide: guards?.hide ?? [],
    unhide: (guards?.unhide ?? []).filter((p) => !undone.includes(p)),
    ...(guards?.unprotect ? { unprotect: guards.unprotect } : {}),
  });
  return trimmed ? { ...rest, guards: trimmed } : rest;
}

/** The hidden paths a server inherits, from the layers `policy.get` reports. */
export function inheritedFromView(view: PolicyView): string[] {
  return inheritedHiddenPaths(view.stored ?? undefined, view.managed.policy ?? undefined).map(
    (h) => h.path,
  );
}
