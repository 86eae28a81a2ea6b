// @vitest-environment jsdom
/** The servers list's windowing: which rows of measured heights meet the visible part, and where. */
import { act, cleanup, render } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anchoredTop,
  rowRange,
  useScrollWindow,
} from '../../../renderer/src/components/use-scroll-window';

afterEach(cleanup);

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

describe('anchoredTop', () => {
  const from = ['a', 'b', 'c', 'd'];
  const sizes = [100, 100, 100, 100];

  it('keeps the row shown at the top in place when rows are added or removed above it', () => {
    expect(anchoredTop(from, sizes, ['x', 'y', ...from], [50, 70, ...sizes], 150)).toBe(270);
    expect(anchoredTop(from, sizes, ['b', 'c', 'd'], [100, 100, 100], 150)).toBe(50);
  });

  it('follows the next row when the one shown at the top is removed', () => {
    expect(anchoredTop(from, sizes, ['a', 'c', 'd'], [100, 100, 100], 150)).toBe(50);
    expect(anchoredTop(from, sizes, ['c', 'd'], [100, 100], 150)).toBe(0);
  });

  it('leaves the very top alone, and an offset with no row left to follow', () => {
    expect(anchoredTop(from, sizes, ['x', ...from], [50, ...sizes], 0)).toBeUndefined();
    expect(anchoredTop(from, sizes, ['x'], [50], 150)).toBeUndefined();
  });
});

const keys = Array.from({ length: 200 }, (_, i) => `server-${i}`);

function Rows(props: { keys?: readonly string[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const win = useScrollWindow(ref, props.keys ?? keys, 150, 300);
  return (
    <div ref={ref} data-testid="scroll" data-total={win.total}>
      {win.rows.map((r) => (
        <p key={r.key} data-row-key={r.key} data-index={r.index} data-top={r.top} />
      ))}
    </div>
  );
}

const shown = (c: HTMLElement) =>
  [...c.querySelectorAll('p')].map((p) => [p.dataset.rowKey, Number(p.dataset.top)]);

describe('useScrollWindow', () => {
  it('renders only the rows near the scroll offset, each placed at the height above it', () => {
    const { container, getByTestId } = render(<Rows />);
    const scroller = getByTestId('scroll');
    expect(scroller.dataset.total).toBe(String(200 * 150));
    // No layout here: the visible part is 0 px tall, so the overscan alone is rendered.
    expect(shown(container)).toEqual([
      ['server-0', 0],
      ['server-1', 150],
    ]);
    Object.defineProperty(scroller, 'scrollTop', { value: 3000, configurable: true });
    act(() => void scroller.dispatchEvent(new Event('scroll')));
    expect(shown(container)).toEqual([
      ['server-18', 2700],
      ['server-19', 2850],
      ['server-20', 3000],
      ['server-21', 3150],
    ]);
  });

  it('moves the offset with rows added above the visible part, so the rows shown stay shown', () => {
    const { container, getByTestId, rerender } = render(<Rows keys={keys} />);
    const scroller = getByTestId('scroll');
    let top = 3000;
    Object.defineProperty(scroller, 'scrollTop', {
      configurable: true,
      get: () => top,
      set: (v: number) => void (top = v),
    });
    act(() => void scroller.dispatchEvent(new Event('scroll')));
    const added = ['new-0', 'new-1', 'new-2', 'new-3', 'new-4'];
    rerender(<Rows keys={[...added, ...keys]} />);
    expect(top).toBe(3000 + 5 * 150);
    expect(shown(container).map(([key]) => key)).toEqual([
      'server-18',
      'server-19',
      'server-20',
      'server-21',
    ]);
  });
});
