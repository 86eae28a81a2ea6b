/**
 * Binds the policy editor to a pure draft (`app/policy/policy-draft.ts`): the draft follows the
 * stored server (a newer revision is rebased under the user's edits), and a save sends only the
 * user's fields in one `servers.update` that the core refuses if the revision moved on meanwhile.
 */
import { useEffect, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import * as drafts from '../../../app/policy/policy-draft';
import type { LaunchSpec, Policy, Server } from '../../../app/policy/policy-schema';
import { useRoot } from '../store/store-context';

export type SaveResult = { ok: true; revision: number } | { ok: false; error: ContractError };

export function useServerDraft(stored: Server | undefined) {
  const update = useRoot((s) => s.updateServer);
  const [draft, setDraft] = useState<drafts.PolicyDraft | undefined>(
    stored && drafts.createDraft(stored),
  );
  // A change saved elsewhere (another window, an "always" grant) is taken in under the edits.
  useEffect(() => {
    if (stored) setDraft((d) => drafts.followServer(d, stored));
  }, [stored]);

  const save = async (): Promise<SaveResult> => {
    if (!draft) return { ok: false, error: { kind: 'not-found', message: 'no server' } };
    const r = await update(drafts.toUpdate(draft));
    if (!r.ok) return r;
    const saved = r.value.server;
    // Edits made while saving stay on top of the saved version.
    setDraft((d) =>
      d === draft || !d ? drafts.createDraft(saved) : drafts.followServer(d, saved),
    );
    return { ok: true, revision: saved.revision };
  };

  return {
    draft,
    dirty: !!draft && drafts.isDirty(draft),
    launchChanged: !!draft && drafts.launchChanged(draft),
    setPolicy: (policy: Policy) => setDraft((d) => d && drafts.editPolicy(d, () => policy)),
    setLaunch: (launch: LaunchSpec) => setDraft((d) => d && drafts.editLaunch(d, launch)),
    reset: () => stored && setDraft(drafts.createDraft(stored)),
    /** Takes in one variable the core just saved as a secret, keeping the rest of the draft. */
    adoptVariable: (server: Server, variable: string) =>
      setDraft((d) => d && drafts.adoptSecret(d, server, variable)),
    save,
  };
}
