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
 * How many notices go out per window; past that, what arrives is counted and announced as one
 * notice when the window ends. A server can ask for one host after another (32 may wait at once
 * per instance, more as they time out): each would otherwise be a notification of its own.
 */
export const NOTICE_BUDGET = { notices: 5, windowMs: 30_000 } as const;

export interface NotifyInboxOptions {
  /** Whether to announce now (an item that arrives while not is not announced later). */
  wanted?: () => boolean;
  budget?: { notices: number; windowMs: number };
}

/**
 * Calls `notify` once for each item that comes to wait in `core`'s Inbox, within the budget.
 * Returns the unsubscribe.
 */
export function notifyInbox(
  core: { subscribe(listener: (event: EventName, payload: unknown) => void): () => void },
  notify: (notice: InboxNotice) => void,
  options: NotifyInboxOptions = {},
): () => void {
  const { wanted = () => true, budget = NOTICE_BUDGET } = options;
  let items: InboxItems = { grants: [], approvals: [], folders: [] };
  const seen = new Set<string>();
  let windowStart = -Infinity;
  let sent = 0;
  let held = 0;
  let timer: NodeJS.Timeout | undefined;
  const summarize = () => {
    timer = undefined;
    const count = held;
    held = 0;
    windowStart = Date.now();
    sent = 1;
    const title = `${count} more request${count === 1 ? '' : 's'} came to Warden's Inbox`;
    notify({
      title,
      brief: title,
      body: 'Allow or deny them in Warden.',
      tag: 'inbox',
    });
  };
  const announce = (notice: InboxNotice) => {
    const now = Date.now();
    if (now - windowStart >= budget.windowMs) {
      windowStart = now;
      sent = 0;
    }
    if (sent < budget.notices) {
      sent += 1;
      notify(notice);
      return;
    }
    held += 1;
    if (!timer) {
      timer = setTimeout(summarize, windowStart + budget.windowMs - now);
      timer.unref();
    }
  };
  const off = core.subscribe((event, payload) => {
    const part = PARTS[event];
    if (part === undefined || !Array.isArray(payload)) return;
    items = { ...items, [part]: payload };
    // What no longer waits is forgotten: the set stays as small as the Inbox.
    const waiting = new Set(newNotices(items, new Set()).map((n) => n.tag));
    for (const tag of seen) if (!waiting.has(tag)) seen.delete(tag);
    for (const notice of newNotices(items, seen)) {
      seen.add(notice.tag);
      if (wanted()) announce(notice);
    }
  });
  return () => {
    off();
    clearTimeout(timer);
  };
}
