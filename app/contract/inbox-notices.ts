/**
 * What a system notification says about each item that waits in the Inbox: a grant a server asks
 * for, a folder it is offered, a call that needs approval. The page raises them while it runs; the
 * app's main process (when no window exists) and `warden serve` raise them otherwise.
 */
import type { PendingFolderGrant } from './folder-grants';
import type { PendingGrant } from './grants';
import type { PendingApproval } from './tools';

export interface InboxNotice {
  title: string;
  /**
   * The title without the host, folder or tool it names, for a notice raised where other local
   * users may read it (a command's arguments, in `/proc` or `ps`): the server and what it asks.
   */
  brief: string;
  body: string;
  /** `grant:ID`, `folder:ID` or `approval:ID`: what a click on the notice opens. */
  tag: string;
}

export interface InboxItems {
  grants: readonly PendingGrant[];
  approvals: readonly PendingApproval[];
  folders?: readonly PendingFolderGrant[];
}

/** The notice for each item that waits and whose tag is not in `seen`. */
export function newNotices(items: InboxItems, seen: ReadonlySet<string>): InboxNotice[] {
  const out: InboxNotice[] = [];
  const add = (tag: string, [title, brief]: [string, string], body: string) => {
    if (!seen.has(tag)) out.push({ title, brief, body, tag });
  };
  for (const g of items.grants)
    add(
      `grant:${g.id}`,
      [`${g.server} wants to reach ${g.host}:${g.port}`, `${g.server} wants to reach a new host`],
      ANSWER,
    );
  for (const f of items.folders ?? [])
    add(
      `folder:${f.id}`,
      [`${f.server} is offered the folder ${f.path}`, `${f.server} is offered a folder`],
      ANSWER,
    );
  for (const a of items.approvals)
    add(
      `approval:${a.id}`,
      [`${a.server} wants to call ${a.tool}`, `${a.server} wants to call a tool`],
      'Allow or deny the call in Warden.',
    );
  return out;
}

const ANSWER = 'Allow or deny it in Warden.';
