import { describe, expect, it } from 'vitest';
import { jsonTextDepth } from './json-depth';

describe('jsonTextDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonTextDepth('{"a":[1,{"b":2}]}', 64)).toBe(3);
    expect(jsonTextDepth('{"a":"[[[[{{{{\\"[["}', 64)).toBe(1);
    expect(jsonTextDepth('"plain"', 64)).toBe(0);
  });

  it('stops at the first level past the limit, without scanning the rest', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(jsonTextDepth(deep, 64)).toBe(65);
    expect(jsonTextDepth(`[${'[]'.repeat(1000)}]`, 64)).toBe(2);
  });
});
