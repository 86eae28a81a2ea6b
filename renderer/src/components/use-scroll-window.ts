/**
 * Windowing for a list of rows of different heights in a scroll container of its own: only the
 * rows near the visible part are rendered, each placed by a transform at the sum of the measured
 * heights above it (an estimate until a row has been shown once). The container is its own
 * composited layer, so a scrolled frame moves that layer and rasters only the rows that come
 * into view; rows entering or leaving the window change no other row's layout. With 200 servers
 * whose activity strips change every frame, this keeps React's work, style, layout and paint to
 * the dozen rows a person can see.
 */
import {
  type RefObject,
  useCallback,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';

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

/**
 * The scroll offset that keeps in place what is shown at `top` when the rows `fromKeys` (of
 * `fromSizes`) become `toKeys` (of `toSizes`): the first row at or below `top` still in the list
 * stays where it was on screen. Undefined at the very top (rows added above then show, as in a
 * page the browser anchors) or when no such row remains.
 */
export function anchoredTop(
  fromKeys: readonly string[],
  fromSizes: readonly number[],
  toKeys: readonly string[],
  toSizes: readonly number[],
  top: number,
): number | undefined {
  if (top <= 0) return undefined;
  const tops = new Map<string, number>();
  let y = 0;
  toKeys.forEach((key, i) => {
    tops.set(key, y);
    y += toSizes[i]!;
  });
  let was = 0;
  for (let i = 0; i < fromKeys.length; was += fromSizes[i]!, i++) {
    if (was + fromSizes[i]! <= top) continue;
    const now = tops.get(fromKeys[i]!);
    if (now !== undefined) return Math.max(0, top + now - was);
  }
  return undefined;
}

export interface ScrollWindow {
  /** The rows to render: their key, 0-based index and offset from the list's top, px. */
  rows: Array<{ key: string; index: number; top: number }>;
  /** Height of the whole list, px. */
  total: number;
  /** Ref callback for a rendered row (`data-row-key` names it): its height is measured. */
  measure: (el: HTMLElement | null) => (() => void) | undefined;
}

const keepNone: ReadonlySet<string> = new Set();

/**
 * The key of the row of `list` that holds the keyboard focus, if one does. It is read as the
 * window is worked out (a scroll, a resize, a change of the list), not watched: a row left
 * rendered after the focus went elsewhere goes at the window's next move.
 */
function focusedRow(list: HTMLElement | null): string | undefined {
  const active = list?.ownerDocument.activeElement;
  if (!list || !active || !list.contains(active)) return undefined;
  return active.closest<HTMLElement>('[data-row-key]')?.dataset.rowKey;
}

/**
 * The window of `keys` (in order) to render in `scrollRef`, a scroll container holding only the
 * list, with `overscanPx` rendered beyond each edge of its visible part. The rows of `keep` are
 * rendered too, at their place, wherever the window is, and so is the row that holds the
 * keyboard focus: scrolled out of the window, it would take the focus with it to the page.
 */
export function useScrollWindow(
  scrollRef: RefObject<HTMLElement | null>,
  keys: readonly string[],
  estimate: number,
  overscanPx: number,
  keep: ReadonlySet<string> = keepNone,
): ScrollWindow {
  const heights = useRef(new Map<string, number>());
  // The scroll offset and visible height, read only where layout is clean (the scroll event, a
  // resize observation): reading them while rendering, after React has changed the DOM, would
  // force a layout of its own.
  const scrollTop = useRef(0);
  const viewport = useRef(0);
  const [, setMeasured] = useState(0);
  const [observer] = useState(() =>
    typeof ResizeObserver === 'undefined'
      ? undefined
      : new ResizeObserver((entries) => {
          let changed = false;
          for (const entry of entries) {
            const el = entry.target as HTMLElement;
            const key = el.dataset.rowKey;
            if (key === undefined) {
              // The scroll container itself: its visible height.
              viewport.current = el.clientHeight;
              changed = true;
              continue;
            }
            const h = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
            if (h === 0 || heights.current.get(key) === h) continue;
            heights.current.set(key, h);
            changed = true;
          }
          if (changed) setMeasured((n) => n + 1);
        }),
  );
  const sizes = keys.map((k) => heights.current.get(k) ?? estimate);
  // Rows added or removed above the visible part would move what is shown (rows are placed by
  // hand, so the browser's own scroll anchoring does not apply): the offset follows them.
  const laidOut = useRef({ keys, sizes });
  const anchored =
    keys === laidOut.current.keys
      ? undefined
      : anchoredTop(laidOut.current.keys, laidOut.current.sizes, keys, sizes, scrollTop.current);

  const subscribe = useCallback(
    (notify: () => void) => {
      const el = scrollRef.current;
      const scrolled = () => {
        scrollTop.current = el?.scrollTop ?? 0;
        notify();
      };
      el?.addEventListener('scroll', scrolled, { passive: true });
      return () => el?.removeEventListener('scroll', scrolled);
    },
    [scrollRef],
  );
  // The snapshot is the range as text, so a scroll within the same rows does not re-render.
  const range = useSyncExternalStore(subscribe, () => {
    const top = anchored ?? scrollTop.current;
    const r = rowRange(sizes, top - overscanPx, top + viewport.current + overscanPx);
    return `${r.first}:${r.end}`;
  });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return undefined;
    viewport.current = el.clientHeight;
    scrollTop.current = el.scrollTop;
    setMeasured((n) => n + 1);
    observer?.observe(el);
    return () => observer?.unobserve(el);
  }, [scrollRef, observer]);
  useLayoutEffect(() => () => observer?.disconnect(), [observer]);
  useLayoutEffect(() => {
    laidOut.current = { keys, sizes };
    const el = scrollRef.current;
    if (anchored === undefined || !el) return;
    el.scrollTop = anchored;
    scrollTop.current = el.scrollTop;
  });

  const [first = 0, end = 0] = range.split(':').map(Number);
  const focused = focusedRow(scrollRef.current);
  const rows: ScrollWindow['rows'] = [];
  let y = 0;
  for (let i = 0; i < sizes.length; i++) {
    if ((i >= first && i < end) || keep.has(keys[i]!) || keys[i] === focused)
      rows.push({ key: keys[i]!, index: i, top: y });
    y += sizes[i]!;
  }
  const measure = useCallback(
    (el: HTMLElement | null) => {
      if (!el || !observer) return undefined;
      observer.observe(el);
      return () => observer.unobserve(el);
    },
    [observer],
  );
  return { rows, total: y, measure };
}
