/**
 * What the managed layer and the global part forbid, as the words a locked control shows: each
 * answer is the reason with its rule, or undefined when the change is allowed. The core refuses
 * the same changes with the same rule; this only says so before anyone tries.
 */
import { useMemo } from 'react';
import {
  bestEffortSwitchRefusal,
  destinationRefusal,
  isolationOffRefusal,
  limitRefusal,
  refusalText,
  unhideRefusal,
  unprotectRefusal,
} from '../../../app/policy/managed-rules';
import type { LimitName } from '../../../app/policy/policy-schema';
import { parentPolicySelectors } from '../store/policy/policy-slice';
import { useRoot } from '../store/store-context';

const text = (r: Parameters<typeof refusalText>[0] | undefined) => r && refusalText(r);

/** The locks of the loaded layers. */
export function usePolicyLocks() {
  const layers = useRoot(parentPolicySelectors.layers);
  return useMemo(
    () => ({
      /** Why the sandbox switch cannot be turned off. */
      isolationOff: () => text(isolationOffRefusal(layers)),
      /** Why `pattern` cannot be allowed. */
      allow: (pattern: string) => text(destinationRefusal(pattern, layers)),
      /** Why `value` is too high for `name`. */
      limit: (name: LimitName, value: number | undefined) =>
        text(limitRefusal(name, value, layers)),
      /** Why no limit may be accepted as best-effort. */
      bestEffort: () => text(bestEffortSwitchRefusal(layers)),
      /** Why the hidden path `path` cannot be shown to a server. */
      unhide: (path: string) => text(unhideRefusal(path, layers)),
      /** Why no workspace file can be made writable for a server. */
      unprotect: () => text(unprotectRefusal(layers)),
    }),
    [layers],
  );
}

/** The managed minimum of the audit retention, as shown beside its fields, or undefined. */
export function useManagedRetention(): string | undefined {
  const audit = useRoot(parentPolicySelectors.layers).managed?.audit;
  const parts: string[] = [];
  if (audit?.minRetentionDays !== undefined)
    parts.push(`${audit.minRetentionDays} days (managed audit.minRetentionDays)`);
  if (audit?.minRetentionMb !== undefined)
    parts.push(`${audit.minRetentionMb} MB (managed audit.minRetentionMb)`);
  return parts.length > 0 ? `The managed policy keeps at least ${parts.join(' and ')}` : undefined;
}
