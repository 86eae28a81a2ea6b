import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import {
  adoptSecret,
  createDraft,
  editLaunch,
  editPolicy,
  followServer,
  isDirty,
  launchChanged,
  rebaseDraft,
  toUpdate,
  type PolicyDraft,
} from './policy-draft';
import {
  addPattern,
  addRoot,
  exceptWorkspaceFile,
  persistGrant,
  pinTools,
  setSecretRef,
} from './policy-edits';
import { policySchema, type Policy, type Server } from './policy-schema';

const tool = { name: 'read', description: 'reads files' };

function server(revision: number, edit: (p: Policy) => Policy = (p) => p): Server {
  return {
    name: 'files',
    launch: { command: 'node', args: ['server.js'] },
    policy: edit(pinTools(defaultPolicy(), { read: tool })),
    revision,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    acknowledged: true,
  };
}

function rebased(draft: PolicyDraft, next: Server | undefined) {
  const r = rebaseDraft(draft, next);
  if (r.kind !== 'rebased') throw new Error(`expected a rebase, got ${r.kind}`);
  return r;
}

describe('policy draft', () => {
  it('is clean when created and dirty after an edit, through the shared policy edits', () => {
    const draft = createDraft(server(3));
    expect(isDirty(draft)).toBe(false);
    const edited = editPolicy(draft, (p) => addRoot(p, { path: '/w', access: 'read' }));
    expect(isDirty(edited)).toBe(true);
    expect(launchChanged(edited)).toBe(false);
    expect(isDirty(editPolicy(edited, () => draft.policy))).toBe(false);
  });

  it('is clean again when a tools field is set back to what its absence means', () => {
    const draft = createDraft(server(3));
    expect(draft.policy.tools.credentials).toBeUndefined();
    const blocked = editPolicy(draft, (p) => ({
      ...p,
      tools: { ...p.tools, credentials: 'block' },
    }));
    expect(isDirty(blocked)).toBe(true);
    const back = editPolicy(blocked, (p) => ({
      ...p,
      tools: { ...p.tools, credentials: 'redact' },
    }));
    expect(isDirty(back)).toBe(false);
    const rule = { tool: 'read', arg: 'path', rule: 'within-roots' };
    const ruled = editPolicy(draft, (p) => ({ ...p, tools: { ...p.tools, argRules: [rule] } }));
    expect(isDirty(ruled)).toBe(true);
    expect(isDirty(editPolicy(ruled, (p) => ({ ...p, tools: { ...p.tools, argRules: [] } })))).toBe(
      false,
    );
    const none = editPolicy(draft, (p) => ({ ...p, tools: { ...p.tools, allowedCalls: [] } }));
    expect(isDirty(none)).toBe(false);
    // Stored explicitly, the default is the same policy as left out: taking it out is no change.
    const explicit = createDraft(
      server(3, (p) => ({ ...p, tools: { ...p.tools, credentials: 'redact' } })),
    );
    const { credentials: _dropped, ...tools } = explicit.policy.tools;
    expect(isDirty(editPolicy(explicit, (p) => ({ ...p, tools })))).toBe(false);
    expect(
      isDirty(editPolicy(explicit, (p) => ({ ...p, tools: { ...p.tools, credentials: 'off' } }))),
    ).toBe(true);
  });

  it('is clean again when a guard exception is added and taken back, stored lists or none', () => {
    for (const stored of [
      server(3),
      server(3, (p) => ({ ...p, guards: { hide: [], unhide: [] } })),
    ]) {
      const draft = createDraft(stored);
      const git = editPolicy(draft, (p) => exceptWorkspaceFile(p, '.git', true));
      expect(isDirty(git)).toBe(true);
      expect(toUpdate(git).policy.guards?.unprotect).toEqual(['.git']);
      expect(isDirty(editPolicy(git, (p) => exceptWorkspaceFile(p, '.git', false)))).toBe(false);
    }
  });

  it('never counts or keeps an edit of the pinned tools', () => {
    const draft = createDraft(server(3));
    const edited = editPolicy(draft, (p) => pinTools(p, { evil: { name: 'evil' } }));
    expect(isDirty(edited)).toBe(false);
    expect(Object.keys(edited.policy.tools.pinned)).toEqual(['read']);
  });

  it('rebases onto a newer revision with no conflict: both sides kept, base moved on', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => addPattern(p, 'allow', 'a.test'));
    const next = server(4, (p) => ({
      ...addPattern(p, 'allow', 'b.test'),
      idleTimeoutSeconds: 60,
    }));
    const r = rebased(draft, next);
    expect(r.conflicts).toEqual([]);
    expect(r.draft.base).toBe(4);
    expect(r.draft.policy.network.allow).toEqual(['b.test', 'a.test']);
    expect(r.draft.policy.idleTimeoutSeconds).toBe(60);
    expect(isDirty(r.draft)).toBe(true);
    expect(toUpdate(r.draft).expectedRevision).toBe(4);
  });

  it('keeps a deny decision taken elsewhere while the user edits the same list', () => {
    const draft = editPolicy(createDraft(server(3, (p) => addPattern(p, 'allow', 'x.test'))), (p) =>
      addPattern(p, 'deny', 'mine.test'),
    );
    const next = server(4, (p) => persistGrant(p, { list: 'deny', pattern: 'x.test' }));
    const r = rebased(draft, next);
    expect(r.conflicts).toEqual([]);
    expect(r.draft.policy.network.allow).toEqual([]);
    expect(r.draft.policy.network.deny).toEqual(['x.test', 'mine.test']);
  });

  it('reports a field both sides changed differently and keeps the user value', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => ({
      ...p,
      network: { ...p.network, mode: 'ask' },
    }));
    const next = server(4, (p) => ({ ...p, network: { ...p.network, mode: 'allowlist' } }));
    const r = rebased(draft, next);
    expect(r.conflicts).toEqual(['policy.network.mode']);
    expect(r.draft.conflicts).toEqual(['policy.network.mode']);
    expect(r.draft.policy.network.mode).toBe('ask');
    expect(r.draft.base).toBe(4);
  });

  it('merges folders per path: an access changed on both sides is one conflict', () => {
    const base = server(3, (p) => addRoot(p, { path: '/w', access: 'read' }));
    const draft = editPolicy(createDraft(base), (p) =>
      addRoot(addRoot(p, { path: '/w', access: 'write' }), { path: '/mine', access: 'read' }),
    );
    const next = server(4, (p) => ({
      ...p,
      filesystem: { roots: [{ path: '/w', access: 'read' }] },
      idleTimeoutSeconds: 5,
    }));
    expect(rebased(draft, next).conflicts).toEqual([]);
    const theirs = server(5, (p) =>
      addRoot(addRoot(p, { path: '/theirs', access: 'read' }), { path: '/w', access: 'read' }),
    );
    const conflicting = server(5, (p) => ({
      ...p,
      filesystem: { roots: [{ path: '/w', access: 'write' }] },
    }));
    expect(rebased(draft, theirs).draft.policy.filesystem.roots).toEqual([
      { path: '/theirs', access: 'read' },
      { path: '/w', access: 'write' },
      { path: '/mine', access: 'read' },
    ]);
    const other = editPolicy(createDraft(base), (p) => ({ ...p, filesystem: { roots: [] } }));
    expect(rebased(other, conflicting).conflicts).toEqual(['policy.filesystem.roots./w']);
  });

  it('takes in a newer revision as is while nothing is edited', () => {
    const draft = createDraft(server(3));
    const next = server(4, (p) => addPattern(p, 'allow', 'b.test'));
    const r = rebased(draft, next);
    expect(r.draft).toEqual(createDraft(next));
    expect(isDirty(r.draft)).toBe(false);
  });

  it('ignores an older or equal revision', () => {
    const draft = editPolicy(createDraft(server(4)), (p) => addPattern(p, 'allow', 'a.test'));
    expect(rebased(draft, server(4)).draft).toBe(draft);
    expect(rebased(draft, server(2)).draft).toBe(draft);
  });

  it('reports a removed server and leaves the draft as it was', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => addPattern(p, 'allow', 'a.test'));
    expect(rebaseDraft(draft, undefined)).toEqual({ kind: 'removed', draft });
    expect(rebaseDraft(draft, { ...server(4), name: 'other' }).kind).toBe('removed');
  });

  it('follows the stored server: rebased under the edits, or fresh for another server', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => addPattern(p, 'allow', 'a.test'));
    expect(followServer(undefined, server(3))).toEqual(createDraft(server(3)));
    expect(followServer(draft, server(4)).policy.network.allow).toEqual(['a.test']);
    const other = { ...server(1), name: 'other' };
    expect(followServer(draft, other)).toEqual(createDraft(other));
  });

  it('rebases the launch spec and sends it only when the user changed it', () => {
    const draft = createDraft(server(3));
    expect(toUpdate(draft)).not.toHaveProperty('launch');
    const edited = editLaunch(draft, { command: 'node', args: ['other.js'] });
    expect(launchChanged(edited)).toBe(true);
    expect(toUpdate(edited).launch).toEqual({ command: 'node', args: ['other.js'] });
    const next = { ...server(4), launch: { command: 'node', args: ['theirs.js'] } };
    expect(rebased(edited, next).conflicts).toEqual(['launch.args']);
  });

  it('adopts a secret the core stored, whatever the draft held for the variable', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => ({
      ...addPattern(p, 'allow', 'a.test'),
      env: { ...p.env, set: { API_KEY: { kind: 'plain', value: 'typed' } } },
    }));
    const saved = server(4, (p) => setSecretRef(p, 'API_KEY', 'files/API_KEY'));
    const adopted = adoptSecret(draft, saved, 'API_KEY');
    expect(adopted.base).toBe(4);
    expect(adopted.conflicts).toEqual([]);
    expect(adopted.policy.env.set['API_KEY']).toEqual({ kind: 'secret', ref: 'files/API_KEY' });
    expect(adopted.policy.network.allow).toEqual(['a.test']);
    expect(toUpdate(adopted).policy.env.set['API_KEY']).toEqual({
      kind: 'secret',
      ref: 'files/API_KEY',
    });
  });

  it('adopts a secret announced again at the same revision without losing edits', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => addPattern(p, 'allow', 'a.test'));
    const saved = server(4, (p) => setSecretRef(p, 'TOKEN', 'files/TOKEN'));
    const once = adoptSecret(rebased(draft, saved).draft, saved, 'TOKEN');
    expect(once.policy.env.set['TOKEN']).toEqual({ kind: 'secret', ref: 'files/TOKEN' });
    expect(once.policy.network.allow).toEqual(['a.test']);
    expect(isDirty(once)).toBe(true);
  });

  it('never sends the pinned tool definitions back, even after a rebase that changed them', () => {
    const draft = editPolicy(createDraft(server(3)), (p) => addPattern(p, 'allow', 'a.test'));
    const next = server(4, (p) => pinTools(p, { write: { name: 'write' } }));
    const update = toUpdate(rebased(draft, next).draft);
    expect(update.policy.tools).not.toHaveProperty('pinned');
    expect(JSON.stringify(update)).not.toContain('reads files');
    expect(update).toEqual({
      name: 'files',
      policy: expect.any(Object) as unknown,
      expectedRevision: 4,
    });
    // The user's fields still form a whole policy once the stored pins are put back.
    const whole = { ...update.policy, tools: { ...update.policy.tools, pinned: {} } };
    expect(policySchema.safeParse(whole).success).toBe(true);
  });
});
