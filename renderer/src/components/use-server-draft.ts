/**
 * The editor's draft of one server (launch spec and policy), based on a revision: dirty when it
 * differs from what is stored, rebased on a newer revision while nothing is edited, saved in one
 * `servers.update` that the core refuses if the revision moved on meanwhile.
 */
import { useEffect, useState } from 'react';
import type { ContractError } from '../../../app/contract/contract-error';
import type { LaunchSpec, Policy, Server } from '../../../app/policy/policy-schema';
import { useRoot } from '../store/store-context';

export interface ServerDraft {
  base: number;
  launch: LaunchSpec;
  policy: Policy;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const fromServer = (s: Server): ServerDraft => ({
  base: s.revision,
  launch: s.launch,
  policy: s.policy,
});

export function useServerDraft(stored: Server | undefined) {
  const update = useRoot((s) => s.updateServer);
  const [draft, setDraft] = useState<ServerDraft | undefined>(stored && fromServer(stored));
  const launchChanged = !!stored && !!draft && !same(draft.launch, stored.launch);
  const dirty = launchChanged || (!!stored && !!draft && !same(draft.policy, stored.policy));
  // A change saved elsewhere (another window, an "always" grant) is taken in while nothing is edited.
  useEffect(() => {
    if (stored && (!draft || (!dirty && draft.base !== stored.revision))) {
      setDraft(fromServer(stored));
    }
  }, [stored, draft, dirty]);

  const save = async (): Promise<
    { ok: true; revision: number } | { ok: false; error: ContractError }
  > => {
    if (!stored || !draft) return { ok: false, error: { kind: 'not-found', message: 'no server' } };
    // Pinned definitions are the gateway's, never edited here: keep the stored ones.
    const policy = {
      ...draft.policy,
      tools: { ...draft.policy.tools, pinned: stored.policy.tools.pinned },
    };
    const r = await update({
      name: stored.name,
      policy,
      ...(launchChanged ? { launch: draft.launch } : {}),
      expectedRevision: draft.base,
    });
    if (!r.ok) return r;
    setDraft(fromServer(r.value.server));
    return { ok: true, revision: r.value.server.revision };
  };

  return {
    draft,
    dirty,
    launchChanged,
    setPolicy: (policy: Policy) => draft && setDraft({ ...draft, policy }),
    setLaunch: (launch: LaunchSpec) => draft && setDraft({ ...draft, launch }),
    reset: () => stored && setDraft(fromServer(stored)),
    /** Takes in one variable the core just saved (a secret), keeping the rest of the draft. */
    adoptVariable: (server: Server, variable: string) => {
      if (!draft) return;
      const value = server.policy.env.set[variable];
      const set = { ...draft.policy.env.set };
      if (value) set[variable] = value;
      setDraft({
        ...draft,
        // Only this save happened since the draft's base: the draft is now based on it. Otherwise
        // something else changed too, and saving must still be refused as a conflict.
        base: server.revision === draft.base + 1 ? server.revision : draft.base,
        policy: { ...draft.policy, env: { ...draft.policy.env, set } },
      });
    },
    save,
  };
}
