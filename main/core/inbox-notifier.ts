/**
 * A system notification for each new item in the Inbox, raised by a core's host where no page
 * raises one: `warden serve`, whose panel may be open nowhere (as when it started at login), and
 * the app while it has no window (started hidden at login). Without it, a server that asks to
 * reach a new host waits unseen until the request times out and is refused.
 */
import { type InboxItems, type InboxNotice, newNotices } from '../../app/contract/inbox-notices';
import type { EventName } from '../../app/contract/contract';

/** The Inbox's part that each core event replaces. */
const PARTS: Partial<Record<string, keyof InboxItems>> = {
  'grants.changed': 'grants',
  'approvals.changed': 'approvals',
  'folders.changed': 'folders',
};

/**
 * Calls `notify` once for each item that comes to wait in `core`'s Inbox, while `wanted()` says so
 * (an item that arrives while it does not is not announced later). Returns the unsubscribe.
 */
export function notifyInbox(
  core: { subscribe(listener: (event: EventName, payload: unknown) => void): () => void },
  notify: (notice: InboxNotice) => void,
  wanted: () => boolean = () => true,
): () => void {
  let items: InboxItems = { grants: [], approvals: [], folders: [] };
  const seen = new Set<string>();
  return core.subscribe((event, payload) => {
    const part = PARTS[event];
    if (part === undefined || !Array.isArray(payload)) return;
    items = { ...items, [part]: payload };
    // What no longer waits is forgotten: the set stays as small as the Inbox.
    const waiting = new Set(newNotices(items, new Set()).map((n) => n.tag));
    for (const tag of seen) if (!waiting.has(tag)) seen.delete(tag);
    for (const notice of newNotices(items, seen)) {
      seen.add(notice.tag);
      if (wanted()) notify(notice);
    }
  });
}
