/** What the store binds to: the typed API plus the status of the link it travels over. */
import type { WardenApi } from '../../../app/contract/api';
import type { ConnectionStatus } from './ws-transport';

export interface CoreConnection {
  api: WardenApi;
  /** Current status; Electron IPC is always open. */
  status: ConnectionStatus;
  /** Subscribes to status changes; returns the unsubscribe function. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** Ends this browser's session and shows the sign-in page; absent in the desktop app. */
  signOut?: () => Promise<void>;
  /** In web mode on 127.0.0.1 (page-origin.ts), that host and port: the panel says so. */
  fallbackHost?: string;
}
