import { describe, expect, it } from 'vitest';
import { expandHome, isNamePattern, nameMatcher } from './guards';
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
    expect(nameMatcher(['.git'])('.g\u0131t')).toBe(true);
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
});
