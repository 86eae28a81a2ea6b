// @vitest-environment jsdom
/** The servers list's windowing: which rows of measured heights meet the visible part, and where. */
import { act, cleanup, render } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { rowRange, useScrollWindow } from '../../../renderer/src/components/use-scroll-window';

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

const keys = Array.from({ length: 200 }, (_, i) => `server-${i}`);

function Rows() {
  const ref = useRef<HTMLDivElement>(null);
  const win = useScrollWindow(ref, keys, 150, 300);
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
});
