/**
 * The `match=` engine loads only where a pattern is compiled (this file does not load the policy
 * schema, which holds it outright). Until it is loaded, a `match=` rule refuses calls.
 */
import { describe, expect, it } from 'vitest';
import { type ArgScope, checkArguments, compileArgRules } from './arg-check';
import { compilePattern } from './arg-rules';
import { loadPatternEngine, needsPatternEngine, patternEngine } from './pattern-engine';

const rules = [{ tool: 'echo', arg: 'message', rule: 'match=hi.*' }];
const scope: ArgScope = { roots: [], network: { mode: 'none', rules: undefined } };
const facts = { realPaths: () => Promise.resolve([]), folderPaths: () => Promise.resolve([]) };

describe('the pattern engine', () => {
  it('is not loaded with the rules: a match= rule compiled without it refuses every call', async () => {
    expect(patternEngine()).toBeUndefined();
    const compiled = compilePattern('hi.*');
    expect(!compiled.ok && compiled.error).toMatch(/pattern engine is not loaded/);
    const without = compileArgRules(rules);
    expect(without.broken).toEqual(rules);
    for (const message of ['hi there', 'bye'])
      expect(await checkArguments(without, 'echo', { message }, scope, facts)).toMatchObject({
        ok: false,
      });
  });

  it('once loaded, compiles patterns and the rule lets matching calls through', async () => {
    await loadPatternEngine();
    expect(patternEngine()).toBeDefined();
    const loaded = compileArgRules(rules);
    expect(loaded.broken).toEqual([]);
    expect(await checkArguments(loaded, 'echo', { message: 'hi there' }, scope, facts)).toEqual({
      ok: true,
    });
    expect(await checkArguments(loaded, 'echo', { message: 'bye' }, scope, facts)).toMatchObject({
      ok: false,
    });
  });

  it('is needed by match= rules alone', () => {
    expect(needsPatternEngine(['within-roots', 'max-length=3', 'one-of=a|b'])).toBe(false);
    expect(needsPatternEngine(['max-length=3', 'match=x'])).toBe(true);
  });
});
