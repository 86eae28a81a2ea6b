/**
 * The policy editor's draft of one server, kept pure so that every step is tested: a copy of the
 * stored launch spec and policy at one revision, edited by the user, rebased onto a newer
 * revision without losing those edits, and turned into the update the core is sent on save.
 * Fields the gateway owns (pinned tool definitions) are never edited here nor sent back.
 */
import { mergeThreeWay } from './policy-draft-merge';
import { setSecretRef, trimGuards } from './policy-edits';
import type { LaunchSpec, Policy, Server, UserPolicy } from './policy-schema';

/** What the editor holds for one server. */
export interface PolicyDraft {
  name: string;
  /** The revision the draft is based on; a save is refused if the stored one moved on. */
  base: number;
  /** The stored launch spec and policy at `base`, to tell what the user changed. */
  original: { launch: LaunchSpec | undefined; policy: Policy };
  /** Absent for a remote server, which has a URL instead of a command. */
  launch: LaunchSpec | undefined;
  policy: Policy;
  /** Fields changed both here and elsewhere since the draft began: the user's values are kept. */
  conflicts: string[];
}

/** The update a save sends: the user's fields and the revision they were edited from. */
export interface DraftUpdate {
  name: string;
  policy: UserPolicy;
  launch?: LaunchSpec;
  expectedRevision: number;
}

/** The outcome of taking in a newer stored version. */
export type Rebased =
  | { kind: 'rebased'; draft: PolicyDraft; conflicts: string[] }
  | { kind: 'removed'; draft: PolicyDraft };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Strips the gateway-owned fields from a policy. */
export function userPolicy(policy: Policy): UserPolicy {
  const { pinned: _pinned, ...tools } = policy.tools;
  return { ...policy, tools };
}

/** A fresh draft of a stored server: nothing edited. */
export function createDraft(server: Server): PolicyDraft {
  const original = { launch: server.launch, policy: server.policy };
  return { name: server.name, base: server.revision, original, ...original, conflicts: [] };
}

/** Applies one policy edit (see `policy-edits.ts`) to the draft; pinned tools stay as stored. */
export function editPolicy(draft: PolicyDraft, edit: (policy: Policy) => Policy): PolicyDraft {
  const edited = edit(draft.policy);
  const tools = { ...edited.tools, pinned: draft.original.policy.tools.pinned };
  return { ...draft, policy: { ...edited, tools } };
}

/** Replaces the draft's launch spec. */
export function editLaunch(draft: PolicyDraft, launch: LaunchSpec): PolicyDraft {
  return { ...draft, launch };
}

/** True when the launch spec differs from the stored one. */
export function launchChanged(draft: PolicyDraft): boolean {
  return !same(draft.launch, draft.original.launch);
}

/**
 * The user's part of a policy as the gateway reads it: a tools field written out at the value its
 * absence means (the `redact` credential mode, no argument rules, no allowed calls) is left out,
 * and so are empty guard lists, so that choosing that value back in the editor leaves nothing to
 * save.
 */
function meaning(policy: Policy): UserPolicy {
  const { guards: _guards, ...user } = userPolicy(policy);
  const guards = trimGuards(policy.guards);
  const { credentials, argRules, allowedCalls, ...tools } = user.tools;
  return {
    ...user,
    ...(guards ? { guards } : {}),
    tools: {
      ...tools,
      ...(credentials !== undefined && credentials !== 'redact' ? { credentials } : {}),
      ...(argRules?.length ? { argRules } : {}),
      ...(allowedCalls?.length ? { allowedCalls } : {}),
    },
  };
}

/** True when the user changed anything they own (pinned tools never count). */
export function isDirty(draft: PolicyDraft): boolean {
  return launchChanged(draft) || !same(meaning(draft.policy), meaning(draft.original.policy));
}

/**
 * Takes in a newer stored version: the draft is based on it from now on, what only the other
 * side changed is taken in, the user's edits are kept, and fields both changed differently are
 * reported (and kept as the user set them). A server that is gone leaves the draft as it was.
 */
export function rebaseDraft(draft: PolicyDraft, next: Server | undefined): Rebased {
  if (!next || next.name !== draft.name) return { kind: 'removed', draft };
  if (next.revision <= draft.base) return { kind: 'rebased', draft, conflicts: [] };
  const policy = mergeThreeWay(draft.original.policy, draft.policy, next.policy, 'policy');
  const [baseLaunch, mine, theirs] = [draft.original.launch, draft.launch, next.launch];
  const launch =
    baseLaunch && mine && theirs
      ? mergeThreeWay(baseLaunch, mine, theirs, 'launch', ['launch.args'])
      : { value: theirs, conflicts: [] };
  const conflicts = [...policy.conflicts, ...launch.conflicts];
  const merged: Policy = {
    ...policy.value,
    tools: { ...policy.value.tools, pinned: next.policy.tools.pinned },
  };
  const rebased: PolicyDraft = {
    name: draft.name,
    base: next.revision,
    original: { launch: next.launch, policy: next.policy },
    launch: launch.value,
    policy: merged,
    conflicts: [...new Set([...draft.conflicts, ...conflicts])],
  };
  return { kind: 'rebased', draft: rebased, conflicts };
}

/**
 * The draft to hold once `stored` is the stored version: the draft rebased onto it, or a fresh
 * one when there was none or it was of another server (the editor moved to that server).
 */
export function followServer(draft: PolicyDraft | undefined, stored: Server): PolicyDraft {
  const r = draft && rebaseDraft(draft, stored);
  return r?.kind === 'rebased' ? r.draft : createDraft(stored);
}

/**
 * Takes in a secret the core just stored for `variable` (saved at once, in its own revision):
 * the draft is rebased onto that revision and the variable refers to the stored secret, whatever
 * the draft held for it before.
 */
export function adoptSecret(draft: PolicyDraft, saved: Server, variable: string): PolicyDraft {
  const rebased = rebaseDraft(draft, saved).draft;
  const stored = saved.policy.env.set[variable];
  if (stored?.kind !== 'secret') return rebased;
  const field = `policy.env.set.${variable}`;
  return {
    ...editPolicy(rebased, (p) => setSecretRef(p, variable, stored.ref)),
    conflicts: rebased.conflicts.filter((c) => c !== field),
  };
}

/** The update to send on save: only user-owned fields, and the launch spec only if changed. */
export function toUpdate(draft: PolicyDraft): DraftUpdate {
  return {
    name: draft.name,
    policy: userPolicy(draft.policy),
    ...(launchChanged(draft) && draft.launch ? { launch: draft.launch } : {}),
    expectedRevision: draft.base,
  };
}
