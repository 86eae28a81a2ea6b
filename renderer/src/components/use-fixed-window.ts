/**
 * Windowing for a list of equal-height rows: which indexes are in view, from the scroll offset
 * alone, in O(rows in view). The audit list's row count changes every frame while events stream
 * in; a general virtualizer (variable sizes) rebuilds a measurement per row on each such change,
 * which is what cost frames at 100,000 rows, so this one only does arithmetic.
 */
import { type RefObject, useCallback, useEffect, useState, useSyncExternalStore } from 'react';

export interface FixedWindow {
  first: number;
  /** One past the last index to render. */
  end: number;
  totalHeight: number;
  /** Scrolls so that `index` is in view (the least movement). */
  scrollToIndex: (index: number) => void;
}

/** The range [first, end) of `count` rows of `rowHeight` px to render in `scrollRef`. */
export function windowRange(
  scrollTop: number,
  viewport: number,
  count: number,
  rowHeight: number,
  overscan: number,
): { first: number; end: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const end = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, end: Math.max(first, end) };
}

export function useFixedWindow(
  scrollRef: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan = 12,
  /** Px the scroll offset is about to move by (rows put on top, anchored after this render). */
  pendingShift = 0,
): FixedWindow {
  const [viewport, setViewport] = useState(600);
  const subscribe = useCallback(
    (notify: () => void) => {
      const el = scrollRef.current;
      el?.addEventListener('scroll', notify, { passive: true });
      return () => el?.removeEventListener('scroll', notify);
    },
    [scrollRef],
  );
  // Snapshot in whole rows, so scrolling within a row does not re-render.
  const topRow = useSyncExternalStore(subscribe, () =>
    Math.floor((scrollRef.current?.scrollTop ?? 0) / rowHeight),
  );
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    setViewport(el.clientHeight);
    return () => ro.disconnect();
  }, [scrollRef]);
  const { first, end } = windowRange(
    topRow * rowHeight + pendingShift,
    viewport + rowHeight,
    count,
    rowHeight,
    overscan,
  );
  const scrollToIndex = useCallback(
    (index: number) => {
      const el = scrollRef.current;
      if (!el) return;
      const top = index * rowHeight;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + el.clientHeight) {
        el.scrollTop = top + rowHeight - el.clientHeight;
      }
    },
    [scrollRef, rowHeight],
  );
  return { first, end, totalHeight: count * rowHeight, scrollToIndex };
}
