import { describe, expect, it } from 'vitest';
import { defaultPolicy } from './defaults';
import {
  addPattern,
  addRoot,
  exceptHiddenPath,
  exceptWorkspaceFile,
  hidePath,
  persistGrant,
  pinTools,
  removePattern,
  removeRoot,
  secretRef,
  setOwnHiddenPaths,
  setSecretRef,
} from './policy-edits';

const tool = { name: 'read', description: 'reads', inputSchema: { type: 'object' } };

describe('policy edits', () => {
  it('adds a root once per path, changes its access, and removes it', () => {
    const base = defaultPolicy();
    const one = addRoot(base, { path: '/w', access: 'read' });
    const two = addRoot(one, { path: '/w', access: 'write' });
    expect(two.filesystem.roots).toEqual([{ path: '/w', access: 'write' }]);
    expect(removeRoot(two, '/w').filesystem.roots).toEqual([]);
    expect(base.filesystem.roots).toEqual([]);
  });

  it('adds a pattern once and removes it', () => {
    const p = addPattern(addPattern(defaultPolicy(), 'allow', 'a.test'), 'allow', 'a.test');
    expect(p.network.allow).toEqual(['a.test']);
    expect(removePattern(p, 'allow', 'a.test').network.allow).toEqual([]);
  });

  it('keeps the latest grant decision: the pattern leaves the other list', () => {
    const base = defaultPolicy();
    base.network.allow = ['a.test:443', 'b.test'];
    const denied = persistGrant(base, { list: 'deny', pattern: 'a.test:443' });
    expect(denied.network).toMatchObject({ allow: ['b.test'], deny: ['a.test:443'] });
    const allowed = persistGrant(denied, { list: 'allow', pattern: 'a.test:443' });
    expect(allowed.network).toMatchObject({ allow: ['b.test', 'a.test:443'], deny: [] });
    expect(base.network.allow).toEqual(['a.test:443', 'b.test']);
  });

  it('pins tools over older pins and sets a secret reference', () => {
    const pinned = pinTools(pinTools(defaultPolicy(), { read: tool }), {
      read: { ...tool, description: 'v2' },
    });
    expect(pinned.tools.pinned.read?.description).toBe('v2');
    const ref = secretRef('srv', 'TOKEN');
    expect(setSecretRef(pinned, 'TOKEN', ref).env.set.TOKEN).toEqual({ kind: 'secret', ref });
  });

  it('adds and takes back guard exceptions, leaving no empty guards behind', () => {
    const base = defaultPolicy();
    const git = exceptWorkspaceFile(exceptWorkspaceFile(base, '.git', true), '.git', true);
    expect(git.guards).toEqual({ hide: [], unhide: [], unprotect: ['.git'] });
    const both = exceptHiddenPath(git, '~/.aws', true);
    expect(both.guards).toEqual({ hide: [], unhide: ['~/.aws'], unprotect: ['.git'] });
    const back = exceptHiddenPath(exceptWorkspaceFile(both, '.git', false), '~/.aws', false);
    expect(back).toEqual(base);
    expect('guards' in back).toBe(false);
    expect(base.guards).toBeUndefined();
  });

  it('moves a path between hidden and shown, as the CLI flags do', () => {
    const hidden = hidePath(defaultPolicy(), '~/.aws');
    expect(hidden.guards).toEqual({ hide: ['~/.aws'], unhide: [] });
    const shown = exceptHiddenPath(hidden, '~/.aws', true);
    expect(shown.guards).toEqual({ hide: [], unhide: ['~/.aws'] });
    expect(hidePath(shown, '~/.aws').guards).toEqual({ hide: ['~/.aws'], unhide: [] });
    // Taking the exception back leaves the server's own hidden paths as they are.
    const own = exceptHiddenPath(hidePath(defaultPolicy(), 'notes.txt'), '~/.aws', true);
    expect(exceptHiddenPath(own, '~/.aws', false).guards).toEqual({
      hide: ['notes.txt'],
      unhide: [],
    });
  });

  it("sets the server's own hidden paths as the editor lists them, dropping their exceptions", () => {
    const excepted = exceptHiddenPath(defaultPolicy(), '~/.aws', true);
    const set = setOwnHiddenPaths(excepted, ['~/work/drafts', '~/.aws', '~/work/drafts']);
    expect(set.guards).toEqual({ hide: ['~/work/drafts', '~/.aws'], unhide: [] });
    // Emptied, nothing is left of the guards.
    expect(setOwnHiddenPaths(set, []).guards).toBeUndefined();
  });
});
