/** Connection to the core, as the page shows it (connected, reconnecting, no token …). */
import type { StateCreator } from 'zustand';
import type { ConnectionStatus } from '../../contract-client/ws-transport';
import type { Root } from '../root-store';

export interface ConnectionSlice {
  connection: ConnectionStatus;
  setConnection: (status: ConnectionStatus) => void;
}

export const createConnectionSlice: StateCreator<Root, [], [], ConnectionSlice> = (set) => ({
  connection: { kind: 'connecting', attempt: 0 },
  setConnection: (connection) => set({ connection }),
});
