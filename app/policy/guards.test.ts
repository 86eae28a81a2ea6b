import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HIDDEN_PATHS,
  expandHome,
  inheritedHiddenPaths,
  isNamePattern,
  nameMatcher,
} from './guards';
import { guardsSchema } from './guards-schema';

describe('guards', () => {
  it('matches bare names whatever their case, * as any run of characters', () => {
    const m = nameMatcher(['.env', '.env.*']);
    for (const name of ['.env', '.env.local', '.env.production.bak'])
      expect(m(name), name).toBe(true);
    for (const name of ['.envrc', 'x.env', 'env', '.env-old', 'a.env.local'])
      expect(m(name), name).toBe(false);
    expect(nameMatcher(['a+b(c)'])('a+b(c)')).toBe(true);
    // Whatever the case: a case-insensitive file system finds `.env` by these.
    for (const name of ['.ENV', '.Env.Local', '.env.LOCAL', '.ENV.\u0131'])
      expect(m(name), name).toBe(true);
    // And further than any such file system folds, so that none finds a name this misses.
    for (const name of ['.g\u0131t', '.g\u200cit', '\uff0e\uff47\uff49\uff54', '.g\u00eft'])
      expect(nameMatcher(['.git'])(name), name).toBe(true);
    expect(nameMatcher(['.ssh'])('.\u1e9eh')).toBe(true);
    expect(nameMatcher(['.ssh'])('.\u017fsh')).toBe(true);
    expect(nameMatcher([])('.env')).toBe(false);
  });

  it('expands ~/ against the home and tells names from paths', () => {
    expect(expandHome('~/.ssh', '/home/ada/')).toBe('/home/ada/.ssh');
    expect(expandHome('~/.ssh', undefined)).toBeUndefined();
    expect(isNamePattern('.env.*')).toBe(true);
    expect(isNamePattern('~/.ssh')).toBe(false);
  });

  it('rejects unknown keys, relative paths and ..', () => {
    expect(guardsSchema.safeParse({ netwrk: {} }).success).toBe(false);
    expect(guardsSchema.safeParse({ hiddenPaths: ['a/b'] }).success).toBe(false);
    expect(guardsSchema.safeParse({ hiddenPaths: ['~/../etc'] }).success).toBe(false);
    expect(guardsSchema.safeParse({ hiddenPaths: ['~/.ssh', '/srv/keys', '.env*'] }).success).toBe(
      true,
    );
  });

  it('lists the inherited hidden paths with their layer, the managed ones first and once', () => {
    const defaults = inheritedHiddenPaths(undefined, undefined);
    expect(defaults.map((h) => h.path)).toEqual(DEFAULT_HIDDEN_PATHS);
    expect(new Set(defaults.map((h) => h.layer))).toEqual(new Set(['default']));
    expect(
      inheritedHiddenPaths({ hiddenPaths: ['~/.aws', '~/.ssh'] }, { hiddenPaths: ['~/.ssh'] }),
    ).toEqual([
      { path: '~/.ssh', layer: 'managed' },
      { path: '~/.aws', layer: 'global' },
    ]);
  });
});
