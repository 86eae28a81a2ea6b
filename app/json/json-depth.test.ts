import { describe, expect, it } from 'vitest';
import { jsonTextDepth, jsonTextShape } from './json-depth';

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

describe('jsonTextShape', () => {
  it('counts the arrays and objects opened, not brackets inside strings', () => {
    expect(jsonTextShape('{"a":[1,{"b":"[{"}],"c":[]}', 64)).toEqual({ depth: 3, containers: 4 });
  });

  it('stops at the first one past the limit, without scanning the rest', () => {
    expect(jsonTextShape(`[${'{},'.repeat(5_000_000)}{}]`, 64, 10)).toEqual({
      depth: 2,
      containers: 11,
    });
  });
});
