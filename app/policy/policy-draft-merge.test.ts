import { describe, expect, it } from 'vitest';
import { mergeThreeWay } from './policy-draft-merge';

describe('three-way merge', () => {
  it('takes a removal from either side and keeps what the other side did not touch', () => {
    const base = { a: 1, b: 2, c: 3 };
    const mine = { a: 1, c: 3 };
    const theirs = { a: 1, b: 2, c: 4, d: 5 };
    expect(mergeThreeWay(base, mine, theirs, 'x')).toEqual({
      value: { a: 1, c: 4, d: 5 },
      conflicts: [],
    });
  });

  it('reports a key both sides added with different values, keeping the user one', () => {
    const r = mergeThreeWay<Record<string, string>>({}, { K: 'mine' }, { K: 'theirs' }, 'env');
    expect(r).toEqual({ value: { K: 'mine' }, conflicts: ['env.K'] });
  });

  it('merges lists as sets unless named ordered', () => {
    const sets = mergeThreeWay(['a', 'b'], ['b', 'c'], ['a', 'b', 'd'], 'l');
    expect(sets.value).toEqual(['b', 'd', 'c']);
    const ordered = mergeThreeWay(['a', 'b'], ['b', 'a'], ['a', 'b', 'd'], 'l', ['l']);
    expect(ordered).toEqual({ value: ['b', 'a'], conflicts: ['l'] });
  });

  it('stops walking at a fixed depth and compares the rest whole', () => {
    const nest = (depth: number, leaf: unknown): unknown =>
      depth === 0 ? leaf : { n: nest(depth - 1, leaf) };
    const r = mergeThreeWay(nest(40, 0), nest(40, 1), nest(40, 2), 'deep');
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0]!.split('.').length).toBeLessThan(20);
    expect(r.value).toEqual(nest(40, 1));
  });
});
