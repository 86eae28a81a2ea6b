/**
 * The one zustand store of the renderer, composed of slices (zustand's slices pattern). Each
 * slice lives in `store/<domain>/` with its selectors; middleware, if any, goes here only.
 */
import { createStore } from 'zustand/vanilla';
import type { WardenApi } from '../../../app/contract/api';
import { type ConnectionSlice, createConnectionSlice } from './connection/connection-slice';
import { type ServersSlice, createServersSlice } from './servers/servers-slice';

export type Root = ServersSlice & ConnectionSlice;

export type RootStore = ReturnType<typeof createRootStore>;

/** Builds the store over one contract client. */
export function createRootStore(api: WardenApi) {
  return createStore<Root>()((...a) => ({
    ...createServersSlice(api)(...a),
    ...createConnectionSlice(...a),
  }));
}
