/**
 * Which screen is open. Kept in the store, not the URL: the page's fragment carries the session
 * token in web mode. Screens other components may add ("import", "clients") are reserved here.
 */
import type { StateCreator } from 'zustand';
import type { ClientId } from '../../../../app/clients/client-formats';
import type { Root } from '../root-store';

export type Screen =
  | { kind: 'servers' }
  | { kind: 'policy'; server: string }
  | { kind: 'server'; server: string }
  | { kind: 'inbox'; focus?: string }
  | { kind: 'audit' }
  | { kind: 'host' }
  /** The parent policy: the guards every server inherits and the managed layer. */
  | { kind: 'parent-policy' }
  | { kind: 'import' }
  /** `client`: the client to preselect, when opened from a server's detail. */
  | { kind: 'clients'; client?: ClientId };

export interface NavSlice {
  screen: Screen;
  navigate: (screen: Screen) => void;
}

export const createNavSlice: StateCreator<Root, [], [], NavSlice> = (set) => ({
  screen: { kind: 'servers' },
  navigate: (screen) => set({ screen }),
});

export const navSelectors = {
  screen: (s: Root) => s.screen,
  kind: (s: Root) => s.screen.kind,
};
