/**
 * The one zustand store of the renderer, composed of slices (zustand's slices pattern). Each
 * slice lives in `store/<domain>/` with its selectors; middleware, if any, goes here only.
 */
import { createStore } from 'zustand/vanilla';
import type { WardenApi } from '../../../app/contract/api';
import { type ActivitySlice, type PaceClock, createActivitySlice } from './activity/activity-slice';
import {
  type AuditSlice,
  type FrameScheduler,
  createAuditSlice,
  nextFrame,
} from './audit/audit-slice';
import { type ToastSlice, createToastSlice } from './toast/toast-slice';
import { type ConnectionSlice, createConnectionSlice } from './connection/connection-slice';
import { type HostSlice, createHostSlice } from './host/host-slice';
import { type InboxSlice, createInboxSlice } from './inbox/inbox-slice';
import { type InstancesSlice, createInstancesSlice } from './instances/instances-slice';
import { type NavSlice, createNavSlice } from './nav/nav-slice';
import { type ParentPolicySlice, createParentPolicySlice } from './policy/policy-slice';
import { type ServersSlice, createServersSlice } from './servers/servers-slice';
import { type DriftSlice, createDriftSlice } from './tools/drift-slice';

export type Root = ServersSlice &
  ConnectionSlice &
  InstancesSlice &
  InboxSlice &
  DriftSlice &
  AuditSlice &
  HostSlice &
  NavSlice &
  ActivitySlice &
  ToastSlice &
  ParentPolicySlice;

export type RootStore = ReturnType<typeof createRootStore>;

export interface RootStoreOptions {
  /** When queued live audit rows are folded (default: the next animation frame). */
  frame?: FrameScheduler;
  /** Paces the activity strips' folds (default: the page's clock and timers). */
  clock?: PaceClock;
}

/** Builds the store over one contract client. */
export function createRootStore(api: WardenApi, options: RootStoreOptions = {}) {
  return createStore<Root>()((...a) => ({
    ...createServersSlice(api)(...a),
    ...createConnectionSlice(...a),
    ...createInstancesSlice(api)(...a),
    ...createInboxSlice(api)(...a),
    ...createDriftSlice(api)(...a),
    ...createAuditSlice(api, options.frame)(...a),
    ...createHostSlice(api)(...a),
    ...createNavSlice(...a),
    ...createActivitySlice(api, options.frame ?? nextFrame, options.clock)(...a),
    ...createToastSlice(...a),
    ...createParentPolicySlice(api)(...a),
  }));
}
