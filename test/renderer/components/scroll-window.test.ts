/** The servers list's windowing: which rows of measured heights meet the viewport. */
import { describe, expect, it } from 'vitest';
import { rowRange } from '../../../renderer/src/components/use-scroll-window';

describe('rowRange', () => {
  const heights = [100, 200, 100, 50, 150];

  it('takes the rows that meet the span and the height of those above and below', () => {
    expect(rowRange(heights, 150, 320)).toEqual({ first: 1, end: 3, before: 100, after: 200 });
    expect(rowRange(heights, 0, 100)).toEqual({ first: 0, end: 1, before: 0, after: 500 });
  });

  it('keeps the whole list when the span covers it, and none past its end', () => {
    expect(rowRange(heights, -600, 2000)).toEqual({ first: 0, end: 5, before: 0, after: 0 });
    expect(rowRange(heights, 700, 900)).toEqual({ first: 5, end: 5, before: 600, after: 0 });
    expect(rowRange([], 0, 900)).toEqual({ first: 0, end: 0, before: 0, after: 0 });
  });
});
