import { describe, expect, it } from 'vitest';
import {
  callPatternText,
  parseCallPatternText,
  callPatternProblem,
  compileCallPattern,
  literalRule,
  matchesCallPattern,
  suggestCallPattern,
} from './call-patterns';
import { policySchema } from './policy-schema';
import { defaultPolicy } from './defaults';

const compiled = (tool: string, args: Record<string, string>) => {
  const c = compileCallPattern({ tool, args });
  if (!c.ok) throw new Error(c.error);
  return c.value;
};

describe('allowed-call patterns', () => {
  it('the suggested pattern matches exactly the values shown, metacharacters included', () => {
    const args = { path: '/srv/a (1).txt', mode: 420, opts: { force: true }, tags: ['x'] };
    const p = suggestCallPattern('write', args)!;
    expect(p.args.path).toBe('match=/srv/a \\(1\\)\\.txt');
    const c = compiled(p.tool, p.args);
    expect(matchesCallPattern(c, 'write', args)).toBe(true);
    expect(matchesCallPattern(c, 'write', { ...args, path: '/srv/a (1)Xtxt' })).toBe(false);
    expect(matchesCallPattern(c, 'write', { ...args, opts: { force: false } })).toBe(false);
    expect(matchesCallPattern(c, 'remove', args)).toBe(false);
  });

  it('an argument the pattern does not name, or one it names that is missing, does not match', () => {
    const c = compiled('fetch', { url: 'match=https://docs\\.example\\.com/.*' });
    expect(matchesCallPattern(c, 'fetch', { url: 'https://docs.example.com/a' })).toBe(true);
    expect(
      matchesCallPattern(c, 'fetch', { url: 'https://docs.example.com/a', method: 'POST' }),
    ).toBe(false);
    expect(matchesCallPattern(c, 'fetch', {})).toBe(false);
    expect(
      matchesCallPattern(c, 'fetch', { url: 'https://evil.example/?https://docs.example.com/' }),
    ).toBe(false);
    expect(matchesCallPattern(compiled('ping', {}), 'ping', undefined)).toBe(true);
    expect(matchesCallPattern(compiled('ping', {}), 'ping', ['x'])).toBe(false);
  });

  it('an edited pattern may widen with one-of, max-length and match', () => {
    const c = compiled('query', { db: 'one-of=dev|test', sql: 'max-length=20' });
    expect(matchesCallPattern(c, 'query', { db: 'test', sql: 'select 1' })).toBe(true);
    expect(matchesCallPattern(c, 'query', { db: 'prod', sql: 'select 1' })).toBe(false);
    expect(matchesCallPattern(c, 'query', { db: 'dev', sql: 'x'.repeat(21) })).toBe(false);
    expect(matchesCallPattern(c, 'query', { db: ['dev'], sql: 'x' })).toBe(false);
  });

  it('refuses a pattern that could not be checked, and the schema says so', () => {
    expect(callPatternProblem({ tool: '*', args: {} })).toMatch(/one tool/);
    expect(callPatternProblem({ tool: 't', args: { a: 'within-roots' } })).toMatch(/not a rule/);
    expect(callPatternProblem({ tool: 't', args: { a: 'match=(' } })).toMatch(/RE2/);
    expect(callPatternProblem({ tool: 't', args: { 'a.b': 'match=x' } })).toMatch(/top-level/);
    expect(callPatternProblem({ tool: 't', args: { a: 'equals={' } })).toMatch(/JSON/);
    const policy = defaultPolicy();
    policy.tools.allowedCalls = [{ tool: 't', args: { a: 'nope' } }];
    expect(policySchema.safeParse(policy).success).toBe(false);
    policy.tools.allowedCalls = [{ tool: 't', args: { a: literalRule('a|b') } }];
    expect(policySchema.safeParse(policy).success).toBe(true);
  });

  it('reads and writes the one-line form the Tools tab lists', () => {
    const p = { tool: 'write', args: { path: 'match=/srv/a b\\.txt', n: 'equals=3' } };
    expect(parseCallPatternText(callPatternText(p))).toEqual({ ok: true, value: p });
    expect(parseCallPatternText('ping')).toEqual({ ok: true, value: { tool: 'ping', args: {} } });
    expect(parseCallPatternText('write {"path": 3}')).toMatchObject({ ok: false });
    expect(parseCallPatternText('write path=x')).toMatchObject({ ok: false });
    expect(parseCallPatternText('write {"path": "within-roots"}')).toMatchObject({ ok: false });
  });
});
