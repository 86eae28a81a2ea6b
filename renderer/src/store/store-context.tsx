/** Hands the store to components; they read it only through selectors. */
import { type ReactNode, createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Root, RootStore } from './root-store';

const StoreContext = createContext<RootStore | undefined>(undefined);

/** Makes `store` available to `useRoot` below it. */
export function StoreProvider(props: { store: RootStore; children: ReactNode }) {
  return <StoreContext.Provider value={props.store}>{props.children}</StoreContext.Provider>;
}

/** Reads the store through a selector; re-renders when the selected value changes. */
export function useRoot<T>(selector: (s: Root) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useRoot needs a StoreProvider above it');
  return useStore(store, selector);
}
