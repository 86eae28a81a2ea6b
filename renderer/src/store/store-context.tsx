/**
 * Hands the store to components; they read it only through selectors. Screens that talk to the
 * core directly (import, clients) get the contract client from here too.
 */
import { type ReactNode, createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { WardenApi } from '../../../app/contract/api';
import type { Root, RootStore } from './root-store';

const StoreContext = createContext<RootStore | undefined>(undefined);
const ApiContext = createContext<WardenApi | undefined>(undefined);

/** Makes `store` (and `api`, when given) available to the hooks below it. */
export function StoreProvider(props: { store: RootStore; api?: WardenApi; children: ReactNode }) {
  return (
    <StoreContext.Provider value={props.store}>
      <ApiContext.Provider value={props.api}>{props.children}</ApiContext.Provider>
    </StoreContext.Provider>
  );
}

/** Reads the store through a selector; re-renders when the selected value changes. */
export function useRoot<T>(selector: (s: Root) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useRoot needs a StoreProvider above it');
  return useStore(store, selector);
}

/** Reads the store's current state once, without subscribing (for event handlers). */
export function useRootSnapshot(): () => Root {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useRootSnapshot needs a StoreProvider above it');
  return store.getState;
}

/** The contract client, for screens that call the core without a store slice. */
export function useWardenApi(): WardenApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useWardenApi needs a StoreProvider with an api above it');
  return api;
}
