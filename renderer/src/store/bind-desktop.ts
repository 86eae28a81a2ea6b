/**
 * Desktop extras driven from the store: a system notification for each new pending grant or
 * approval, the badge showing how many wait, and a click on a notification opening that item.
 */
import { newNotices } from '../../../app/contract/inbox-notices';
import type { DesktopShell } from '../contract-client/desktop-shell';
import { inboxSelectors } from './inbox/inbox-slice';
import type { Root, RootStore } from './root-store';

/** Wires `shell` to `store`; returns a function that undoes it. */
export function bindDesktop(store: RootStore, shell: DesktopShell): () => void {
  const seen = new Set<string>();
  let count = -1;
  const update = (s: Root) => {
    for (const n of newNotices(s, seen)) {
      seen.add(n.tag);
      shell.notify?.(n);
    }
    const now = inboxSelectors.count(s);
    if (now !== count) {
      count = now;
      shell.setBadgeCount?.(now);
    }
  };
  update(store.getState());
  const offStore = store.subscribe((s, prev) => {
    if (s.grants !== prev.grants || s.approvals !== prev.approvals || s.folders !== prev.folders)
      update(s);
  });
  const offClick = shell.onNotificationClick?.((tag) => {
    store.getState().navigate({ kind: 'inbox', focus: tag });
  });
  return () => {
    offStore();
    offClick?.();
  };
}
