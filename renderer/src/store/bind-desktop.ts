/**
 * Desktop extras driven from the store: a system notification for each new pending grant or
 * approval, the badge showing how many wait, and a click on a notification opening that item.
 */
import type { DesktopShell } from '../contract-client/desktop-shell';
import { inboxSelectors } from './inbox/inbox-slice';
import type { Root, RootStore } from './root-store';

/** The notification for each item in `next` that was not in `seen`. */
export function newNotices(
  s: Pick<Root, 'grants' | 'approvals'> & Partial<Pick<Root, 'folders'>>,
  seen: ReadonlySet<string>,
): Array<{ title: string; body: string; tag: string }> {
  const out: Array<{ title: string; body: string; tag: string }> = [];
  for (const g of s.grants) {
    const tag = `grant:${g.id}`;
    if (!seen.has(tag)) {
      out.push({
        title: `${g.server} wants to reach ${g.host}:${g.port}`,
        body: 'Allow or deny it in Warden.',
        tag,
      });
    }
  }
  for (const f of s.folders ?? []) {
    const tag = `folder:${f.id}`;
    if (!seen.has(tag)) {
      out.push({
        title: `${f.server} is offered the folder ${f.path}`,
        body: 'Allow or deny it in Warden.',
        tag,
      });
    }
  }
  for (const a of s.approvals) {
    const tag = `approval:${a.id}`;
    if (!seen.has(tag)) {
      out.push({
        title: `${a.server} wants to call ${a.tool}`,
        body: 'Allow or deny the call in Warden.',
        tag,
      });
    }
  }
  return out;
}

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
