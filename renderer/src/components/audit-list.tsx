/**
 * The audit rows, newest first, as a windowed listbox: only the rows in view (plus a few) are in
 * the DOM, whatever is loaded. Rows arriving on top keep the reader's place unless they are
 * at the top already; scrolling near the end loads the next older page. Arrow keys move the
 * selection, whose detail is shown beside the list.
 */
import { type KeyboardEvent, memo, useEffect, useLayoutEffect, useRef } from 'react';
import type { AuditRow } from '../../../app/audit/audit-row';
import { useShallow } from 'zustand/react/shallow';
import { auditSelectors, indexOfId } from '../store/audit/audit-selectors';
import { useRoot } from '../store/store-context';
import { auditRowText } from './display-format';
import { useFixedWindow } from './use-fixed-window';

export const AUDIT_ROW_HEIGHT = 28;

const AuditLine = memo(function AuditLine(props: {
  row: AuditRow;
  selected: boolean;
  index: number;
  total: number;
  top: number;
}) {
  const { row } = props;
  const text = auditRowText(row);
  return (
    <div
      role="option"
      id={`audit-row-${row.id}`}
      aria-selected={props.selected}
      aria-posinset={props.index + 1}
      aria-setsize={props.total}
      data-id={row.id}
      data-kind={row.kind}
      data-count={row.event.repeat?.count}
      className={`audit-row outcome-${row.outcome}`}
      style={{ transform: `translateY(${props.top}px)` }}
    >
      <span className="c-time">{text.time}</span>
      <span className="c-kind">{row.kind}</span>
      <span className="c-outcome">
        <span className={`outcome outcome-pill-${row.outcome}`}>{row.outcome}</span>
      </span>
      <span className="c-server">{row.server ?? ''}</span>
      <span className="c-text">{text.detail}</span>
    </div>
  );
});

export function AuditList() {
  const { rows, headAdded, selected, hasMore, loadOlder, select } = useRoot(
    useShallow(auditSelectors.list),
  );
  const scrollRef = useRef<HTMLDivElement>(null);
  const lastHead = useRef(headAdded);

  // Rows put on top since the last render move the reader's rows down; the layout effect below
  // scrolls by as much, and the window is computed for where it will be.
  const scrolled = (scrollRef.current?.scrollTop ?? 0) > 0;
  const shift = scrolled ? (headAdded - lastHead.current) * AUDIT_ROW_HEIGHT : 0;
  const win = useFixedWindow(scrollRef, rows.length, AUDIT_ROW_HEIGHT, 12, shift);

  // Keep the rows the reader is looking at in place when new ones arrive above them.
  useLayoutEffect(() => {
    const added = headAdded - lastHead.current;
    lastHead.current = headAdded;
    const el = scrollRef.current;
    if (el && added > 0 && el.scrollTop > 0) el.scrollTop += added * AUDIT_ROW_HEIGHT;
  }, [headAdded]);

  const lastIndex = win.end - 1;
  useEffect(() => {
    if (hasMore && rows.length > 0 && lastIndex > rows.length - 100) void loadOlder();
  }, [hasMore, lastIndex, rows.length, loadOlder]);

  const selectedIndex = indexOfId(rows, selected);
  const selectedShown = selectedIndex >= win.first && selectedIndex < win.end;
  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(
      1,
      Math.floor((scrollRef.current?.clientHeight ?? 280) / AUDIT_ROW_HEIGHT) - 1,
    );
    const moves: Record<string, number> = {
      ArrowDown: 1,
      ArrowUp: -1,
      PageDown: page,
      PageUp: -page,
    };
    let to: number | undefined;
    if (e.key in moves) to = Math.min(rows.length - 1, Math.max(0, selectedIndex + moves[e.key]!));
    if (e.key === 'Home') to = 0;
    if (e.key === 'End') to = rows.length - 1;
    if (to === undefined || rows.length === 0) return;
    e.preventDefault();
    select(rows[to]!.id);
    win.scrollToIndex(to);
  };

  return (
    <div className="audit-table">
      {/* Column headers for sighted readers; each option's own text reads in the same order. */}
      <div className="audit-columns" aria-hidden="true">
        <span className="c-time">Date and time</span>
        <span className="c-kind">Event</span>
        <span className="c-outcome">Outcome</span>
        <span className="c-server">Server</span>
        <span className="c-text">Detail</span>
      </div>
      <div
        ref={scrollRef}
        className="audit-scroll"
        role="listbox"
        aria-label="Audit events, newest first"
        aria-activedescendant={selectedShown ? `audit-row-${selected}` : undefined}
        tabIndex={0}
        onKeyDown={onKey}
        onClick={(e) => {
          const id = (e.target as HTMLElement).closest<HTMLElement>('[data-id]')?.dataset.id;
          if (id) select(Number(id));
        }}
      >
        <div className="audit-canvas" style={{ height: win.totalHeight }}>
          {rows.slice(win.first, win.end).map((row, k) => (
            <AuditLine
              key={row.id}
              row={row}
              selected={row.id === selected}
              index={win.first + k}
              total={rows.length}
              top={(win.first + k) * AUDIT_ROW_HEIGHT}
            />
          ))}
        </div>
      </div>
    </div>
  );
}
