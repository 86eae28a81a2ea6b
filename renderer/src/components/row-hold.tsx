/**
 * Rows of a windowed list held rendered while they hold something the user has open: a
 * confirmation, an add field with half-typed text. The window renders the rows near
 * the visible part and unmounts the others, and an unmounted row loses its React state; a row
 * pushed out of the window by rows added above it, by a scroll or by a resize would close what
 * the user was in the middle of.
 * A held row is rendered at its place wherever the window is.
 */
import {
  type ReactNode,
  createContext,
  useCallback,
  useContext,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';

type Hold = () => () => void;

const noHold: Hold = () => () => undefined;
const ListHold = createContext<(key: string) => () => void>(noHold);
const RowHold = createContext<Hold>(noHold);

/** The keys held rendered, and the function a row calls to hold its key (it answers a release). */
export function useHeldKeys(): [ReadonlySet<string>, (key: string) => () => void] {
  const counts = useRef(new Map<string, number>());
  const [held, setHeld] = useState<ReadonlySet<string>>(() => new Set());
  const hold = useCallback((key: string) => {
    const add = (n: number) => {
      const next = (counts.current.get(key) ?? 0) + n;
      if (next > 0) counts.current.set(key, next);
      else counts.current.delete(key);
      if (next === 0 || (n > 0 && next === 1)) setHeld(new Set(counts.current.keys()));
    };
    add(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      add(-1);
    };
  }, []);
  return [held, hold];
}

/** Gives the rows below it the list's `hold`. */
export function ListHoldProvider(props: {
  hold: (key: string) => () => void;
  children: ReactNode;
}) {
  return <ListHold.Provider value={props.hold}>{props.children}</ListHold.Provider>;
}

/** Gives the controls below it a way to hold the row `rowKey` rendered (`useHoldRow`). */
export function RowHoldProvider(props: { rowKey: string; children: ReactNode }) {
  const holdList = useContext(ListHold);
  const { rowKey } = props;
  const hold = useMemo<Hold>(() => () => holdList(rowKey), [holdList, rowKey]);
  return <RowHold.Provider value={hold}>{props.children}</RowHold.Provider>;
}

/** Holds the row `key` of the list above rendered while `active` (outside a list, nothing). */
export function useHoldKey(key: string, active: boolean): void {
  const holdList = useContext(ListHold);
  useLayoutEffect(() => (active ? holdList(key) : undefined), [holdList, key, active]);
}

/** Holds the row this control sits in rendered while `active` (outside a list, does nothing). */
export function useHoldRow(active: boolean): void {
  const hold = useContext(RowHold);
  useLayoutEffect(() => (active ? hold() : undefined), [hold, active]);
}
