/** Pending network grants, folder grants and tool-call approvals, and the decisions on them. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { FolderDecision, PendingFolderGrant } from '../../../../app/contract/folder-grants';
import type { GrantDecision, PendingGrant } from '../../../../app/contract/grants';
import type { ApprovalDecision, PendingApproval } from '../../../../app/contract/tools';
import type { Result } from '../../../../app/result';
import type { Root } from '../root-store';
import { attempt, quietly } from '../servers/servers-slice';

export interface InboxSlice {
  grants: PendingGrant[];
  approvals: PendingApproval[];
  folders: PendingFolderGrant[];
  loadInbox: () => Promise<void>;
  grantsChanged: (list: PendingGrant[]) => void;
  approvalsChanged: (list: PendingApproval[]) => void;
  foldersChanged: (list: PendingFolderGrant[]) => void;
  decideFolder: (id: string, decision: FolderDecision) => Promise<Result<boolean, ContractError>>;
  decideGrant: (id: string, decision: GrantDecision) => Promise<Result<boolean, ContractError>>;
  /** `pattern`: for "always", the argument patterns to save (default: the ones offered). */
  decideApproval: (
    id: string,
    decision: ApprovalDecision,
    pattern?: Record<string, string>,
  ) => Promise<Result<boolean, ContractError>>;
}

export const createInboxSlice =
  (api: WardenApi): StateCreator<Root, [], [], InboxSlice> =>
  (set) => {
    /**
     * Sends a decision; once taken, the item leaves its list at once. The core also sends the
     * list's event; dropping it here keeps a double click harmless.
     */
    const decided = (
      list: 'grants' | 'approvals' | 'folders',
      id: string,
      run: () => Promise<{ decided: boolean }>,
    ) =>
      attempt(async () => {
        const { decided } = await run();
        if (decided) set((s) => ({ [list]: s[list].filter((x) => x.id !== id) }));
        return decided;
      });
    return {
      grants: [],
      approvals: [],
      folders: [],
      loadInbox: () =>
        quietly(async () => {
          const [grants, approvals, folders] = await Promise.all([
            api['grants.list']({}),
            api['approvals.list']({}),
            api['folders.list']({}),
          ]);
          set({ grants, approvals, folders });
        }),
      grantsChanged: (grants) => set({ grants }),
      approvalsChanged: (approvals) => set({ approvals }),
      foldersChanged: (folders) => set({ folders }),
      decideFolder: (id, decision) =>
        decided('folders', id, () => api['folders.decide']({ id, decision })),
      decideGrant: (id, decision) =>
        decided('grants', id, () => api['grants.decide']({ id, decision })),
      decideApproval: (id, decision, pattern) =>
        decided('approvals', id, () =>
          api['approvals.decide']({ id, decision, ...(pattern ? { pattern } : {}) }),
        ),
    };
  };

export const inboxSelectors = {
  grants: (s: Root) => s.grants,
  approvals: (s: Root) => s.approvals,
  folders: (s: Root) => s.folders,
  count: (s: Root) => s.grants.length + s.approvals.length + s.folders.length,
};
