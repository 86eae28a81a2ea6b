import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import { conflictText } from './policy-conflicts';
import { createDraft, editLaunch, editPolicy, rebaseDraft, type PolicyDraft } from './policy-draft';
import type { LaunchSpec, Policy, Server } from './policy-schema';

const launch: LaunchSpec = { command: 'node', args: ['server.js'] };

function server(revision: number, edit: (p: Policy) => Policy, spec = launch): Server {
  return {
    name: 'files',
    launch: spec,
    policy: edit(defaultPolicy()),
    revision,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    acknowledged: true,
  };
}

/** The notice's words for what the user edited and another window saved meanwhile. */
function conflicts(base: Server, mine: (d: PolicyDraft) => PolicyDraft, theirs: Server): string[] {
  const r = rebaseDraft(mine(createDraft(base)), theirs);
  if (r.kind !== 'rebased') throw new Error('expected a rebase');
  return r.draft.conflicts.map((c) => conflictText(r.draft, c));
}

const withRoots =
  (...roots: Policy['filesystem']['roots']) =>
  (p: Policy): Policy => ({ ...p, filesystem: { roots: roots } });

describe('conflictText', () => {
  it('names the network mode with the stored choice as the editor labels it', () => {
    const ask = (p: Policy): Policy => ({ ...p, network: { ...p.network, mode: 'ask' } });
    const none = (p: Policy): Policy => ({ ...p, network: { ...p.network, mode: 'none' } });
    const theirs = server(2, (p) => ({ ...p, network: { ...p.network, mode: 'allowlist' } }));
    expect(conflicts(server(1, none), (d) => editPolicy(d, ask), theirs)).toEqual([
      'Network (stored: Allowlist)',
    ]);
  });

  it('names a folder by its whole path, dots included, and says what access is stored', () => {
    const path = '/home/me/my.project.v2';
    const base = server(1, withRoots({ path, access: 'read' }));
    const writable = server(2, withRoots({ path: path, access: 'write' }));
    const mine = (d: PolicyDraft) =>
      editPolicy(d, withRoots({ path, access: 'read' }, { path: '/x', access: 'read' }));
    expect(conflicts(base, mine, writable)).toEqual([]);
    const removed = server(2, withRoots());
    const changed = (d: PolicyDraft) => editPolicy(d, withRoots({ path, access: 'write' }));
    expect(conflicts(base, changed, removed)).toEqual([`Folder ${path} (stored: not granted)`]);
    const other = (d: PolicyDraft) =>
      editPolicy(d, withRoots({ path, access: 'read' }, { path: '/a.b', access: 'write' }));
    const theirs = server(2, withRoots({ path, access: 'read' }, { path: '/a.b', access: 'read' }));
    expect(conflicts(base, other, theirs)).toEqual(['Folder /a.b (stored: read-only)']);
  });

  it('never shows a variable’s value, stored or typed', () => {
    const set =
      (value: string) =>
      (p: Policy): Policy => ({
        ...p,
        env: { ...p.env, set: { API_KEY: { kind: 'plain', value } } },
      });
    const texts = conflicts(
      server(1, set('old-value')),
      (d) => editPolicy(d, set('typed-value')),
      server(2, set('stored-value')),
    );
    expect(texts).toEqual(['Variable API_KEY (stored: a value)']);
    const secret = server(2, (p) => ({
      ...p,
      env: { ...p.env, set: { API_KEY: { kind: 'secret', ref: 'files/API_KEY' } } },
    }));
    const removedHere = (d: PolicyDraft) =>
      editPolicy(d, (p) => ({ ...p, env: { ...p.env, set: {} } }));
    expect(conflicts(server(1, set('old-value')), removedHere, secret)).toEqual([
      'Variable API_KEY (stored: a stored secret)',
    ]);
    for (const value of ['old-value', 'typed-value', 'stored-value'])
      expect(texts.join(' ')).not.toContain(value);
  });

  it('names limits with their unit, and an unset one as none', () => {
    const memory =
      (memoryMb?: number) =>
      (p: Policy): Policy => ({
        ...p,
        limits: { ...p.limits, memoryMb },
      });
    expect(
      conflicts(server(1, memory(256)), (d) => editPolicy(d, memory(1024)), server(2, memory(512))),
    ).toEqual(['Memory limit (stored: 512 MB)']);
    expect(
      conflicts(server(1, memory(256)), (d) => editPolicy(d, memory(1024)), server(2, memory())),
    ).toEqual(['Memory limit (stored: none)']);
  });

  it('shows a stored command and arguments escaped', () => {
    const base = server(1, (p) => p);
    const theirs = server(2, (p) => p, { command: 'evil\u202egnp.exe', args: ['--port', '3000'] });
    const mine = (d: PolicyDraft) => editLaunch(d, { command: 'python3', args: ['-m', 'srv'] });
    expect(conflicts(base, mine, theirs)).toEqual([
      'Program (stored: evil\\u202egnp.exe)',
      'Arguments (stored: --port 3000)',
    ]);
  });

  it('names a field it has no words for by its keys, with the stored value', () => {
    const draft = createDraft(server(1, (p) => ({ ...p, tools: { ...p.tools, disabled: [] } })));
    expect(conflictText(draft, 'policy.tools.approvalTimeoutSeconds')).toBe(
      `Wait for an approval (stored: ${draft.original.policy.tools.approvalTimeoutSeconds} s)`,
    );
    expect(conflictText(draft, 'policy.tools.unknownThing')).toBe(
      'tools › unknownThing (stored: not set)',
    );
    expect(conflictText(draft, 'policy.isolation')).toBe('Sandbox isolation (stored: on)');
  });
});
