/** Pending network grants and tool-call approvals, and the one-click decisions on them. */
import type { StateCreator } from 'zustand';
import type { WardenApi } from '../../../../app/contract/api';
import type { ContractError } from '../../../../app/contract/contract-error';
import type { GrantDecision, PendingGrant } from '../../../../app/contract/grants';
import type { PendingApproval } from '../../../../app/contract/tools';
import { type Result, err, ok } from '../../../../app/result';
import type { Root } from '../root-store';
import { toContractError } from '../servers/servers-slice';

export interface InboxSlice {
  grants: PendingGrant[];
  approvals: PendingApproval[];
  loadInbox: () => Promise<void>;
  grantsChanged: (list: PendingGrant[]) => void;
  approvalsChanged: (list: PendingApproval[]) => void;
  decideGrant: (id: string, decision: GrantDecision) => Promise<Result<boolean, ContractError>>;
  decideApproval: (
    id: string,
    decision: 'approve' | 'deny',
  ) => Promise<Result<boolean, ContractError>>;
}

export const createInboxSlice =
  (api: WardenApi): StateCreator<Root, [], [], InboxSlice> =>
  (set) => ({
    grants: [],
    approvals: [],
    loadInbox: async () => {
      try {
        const [grants, approvals] = await Promise.all([
          api['grants.list']({}),
          api['approvals.list']({}),
        ]);
        set({ grants, approvals });
      } catch {
        /* kept as it was; the connection banner says why */
      }
    },
    grantsChanged: (grants) => set({ grants }),
    approvalsChanged: (approvals) => set({ approvals }),
    decideGrant: async (id, decision) => {
      try {
        const { decided } = await api['grants.decide']({ id, decision });
        // The core also sends grants.changed; dropping it here keeps a double click harmless.
        if (decided) set((s) => ({ grants: s.grants.filter((g) => g.id !== id) }));
        return ok(decided);
      } catch (error) {
        return err(toContractError(error));
      }
    },
    decideApproval: async (id, decision) => {
      try {
        const { decided } = await api['approvals.decide']({ id, decision });
        if (decided) set((s) => ({ approvals: s.approvals.filter((a) => a.id !== id) }));
        return ok(decided);
      } catch (error) {
        return err(toContractError(error));
      }
    },
  });

export const inboxSelectors = {
  grants: (s: Root) => s.grants,
  approvals: (s: Root) => s.approvals,
  count: (s: Root) => s.grants.length + s.approvals.length,
};
