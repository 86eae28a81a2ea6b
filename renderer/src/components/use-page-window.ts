/**
 * Windowing for a list of rows of different heights that scrolls with the page: only the rows
 * near the viewport are rendered, the others stand as padding of their measured height (an
 * estimate until a row has been shown once). With 200 servers whose activity strips change every
 * frame, this keeps both React's work and the browser's style and layout to the dozen rows a
 * person can see.
 */
import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from 'react';
import { useSyncExternalStore } from 'react';

export interface RowRange {
  first: number;
  /** One past the last row to render. */
  end: number;
  /** Px of rows above `first` and below `end`. */
  before: number;
  after: number;
}

/** The rows of `heights` that meet the span [top, bottom) (px from the list's top). */
export function rowRange(heights: readonly number[], top: number, bottom: number): RowRange {
  let y = 0;
  let first = 0;
  while (first < heights.length && y + heights[first]! <= top) y += heights[first++]!;
  const before = y;
  let end = first;
  while (end < heights.length && y < bottom) y += heights[end++]!;
  let after = 0;
  for (let i = end; i < heights.length; i++) after += heights[i]!;
  return { first, end, before, after };
}

export interface PageWindow extends RowRange {
  /** Ref callback for a rendered row (`data-row-key` names it): its height is measured. */
  measure: (el: HTMLElement | null) => (() => void) | undefined;
}

/**
 * The window of `keys` (in order) to render in `listRef`, a list in the page's scroll, with
 * `overscanPx` rendered beyond each edge of the viewport.
 */
export function usePageWindow(
  listRef: RefObject<HTMLElement | null>,
  keys: readonly string[],
  estimate: number,
  overscanPx: number,
): PageWindow {
  const heights = useRef(new Map<string, number>());
  // Where the list is and how far the page is scrolled, read only where layout is clean (the
  // scroll event, a resize, a resize observation): reading them while rendering, after React has
  // changed the DOM, would force a layout of its own.
  const listTop = useRef(0);
  const scrollY = useRef(0);
  const readTop = useCallback(() => {
    const el = listRef.current;
    scrollY.current = window.scrollY;
    if (el) listTop.current = el.getBoundingClientRect().top + scrollY.current;
  }, [listRef]);
  const [, setMeasured] = useState(0);
  const [observer] = useState(() =>
    typeof ResizeObserver === 'undefined'
      ? undefined
      : new ResizeObserver((entries) => {
          let changed = false;
          for (const entry of entries) {
            // The list itself is observed too, for its position (read below) only.
            const key = (entry.target as HTMLElement).dataset.rowKey;
            const h = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
            if (key === undefined || h === 0 || heights.current.get(key) === h) continue;
            heights.current.set(key, h);
            changed = true;
          }
          readTop();
          if (changed) setMeasured((n) => n + 1);
        }),
  );
  const sizes = keys.map((k) => heights.current.get(k) ?? estimate);

  const subscribe = useCallback(
    (notify: () => void) => {
      const scrolled = () => {
        scrollY.current = window.scrollY;
        notify();
      };
      const resized = () => {
        readTop();
        notify();
      };
      window.addEventListener('scroll', scrolled, { passive: true });
      window.addEventListener('resize', resized);
      return () => {
        window.removeEventListener('scroll', scrolled);
        window.removeEventListener('resize', resized);
      };
    },
    [readTop],
  );
  // The snapshot is the range as text, so a scroll within the same rows does not re-render.
  const range = useSyncExternalStore(subscribe, () => {
    const top = scrollY.current - listTop.current;
    const r = rowRange(sizes, top - overscanPx, top + window.innerHeight + overscanPx);
    return `${r.first}:${r.end}`;
  });
  // Once the list is in the page, its real position decides the range.
  useLayoutEffect(() => {
    readTop();
    setMeasured((n) => n + 1);
    const el = listRef.current;
    if (el) observer?.observe(el);
  }, [readTop, listRef, observer]);
  useLayoutEffect(() => () => observer?.disconnect(), [observer]);

  const [first = 0, end = 0] = range.split(':').map(Number);
  let before = 0;
  let after = 0;
  for (let i = 0; i < first; i++) before += sizes[i]!;
  for (let i = end; i < sizes.length; i++) after += sizes[i]!;
  const measure = useCallback(
    (el: HTMLElement | null) => {
      if (!el || !observer) return undefined;
      observer.observe(el);
      return () => observer.unobserve(el);
    },
    [observer],
  );
  return { first, end: Math.min(end, keys.length), before, after, measure };
}
