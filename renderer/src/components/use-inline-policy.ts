/**
 * Saves one change made on a server's row at once, as a new policy revision, and offers to undo it
 * in a toast (the undo is saved as a revision too). Two rows editing at once cannot overwrite each
 * other: each save names the revision it started from.
 */
import { useCallback } from 'react';
import type { Policy } from '../../../app/policy/policy-schema';
import { serversSelectors } from '../store/servers/servers-selectors';
import { useRoot } from '../store/store-context';

/** Returns `save(what, change)`: resolves to an error message, or undefined once saved. */
export function useInlinePolicy(name: string) {
  const updateServer = useRoot((s) => s.updateServer);
  const showToast = useRoot((s) => s.showToast);
  const view = useRoot(serversSelectors.byName(name));
  return useCallback(
    async (what: string, change: (policy: Policy) => Policy): Promise<string | undefined> => {
      if (!view) return 'this server no longer exists';
      const before = view.server.policy;
      const saved = await updateServer({
        name,
        policy: change(structuredClone(before)),
        expectedRevision: view.server.revision,
      });
      if (!saved.ok) {
        const message = `${saved.error.message}${saved.error.remedy ? ` ${saved.error.remedy}` : ''}`;
        showToast({ message: `Not saved: ${message}`, tone: 'error' });
        return message;
      }
      const revision = saved.value.server.revision;
      showToast({
        message: `${what} Saved as revision ${revision}.`,
        undo: async () => {
          const undone = await updateServer({ name, policy: before, expectedRevision: revision });
          return undone.ok ? undefined : undone.error.message;
        },
      });
      return undefined;
    },
    [view, name, updateServer, showToast],
  );
}
