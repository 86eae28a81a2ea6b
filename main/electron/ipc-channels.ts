/**
 * The one typed map of IPC channels between the Electron main process and the preload. Only the
 * typed wrappers in this folder touch `ipcMain`, `ipcRenderer` and `webContents.send`, and they
 * name channels through this map. Imported by the sandboxed preload, so it holds no runtime
 * imports beyond the contract's types.
 */
import type { EventName } from '../../app/contract/contract';
import type { Reply } from '../../app/contract/reply';

export const ipcChannels = {
  /** Renderer → main, invoke: one contract operation; answers with a Reply. */
  call: 'warden:call',
  /** Main → renderer, send: one core event. */
  event: 'warden:event',
  /** Renderer → main, invoke: one desktop shell request (notification, badge, dialogs). */
  shell: 'warden:shell',
  /** Main → renderer, send: the tag of a notification the user clicked. */
  notificationClick: 'warden:notification-click',
} as const;

/** Argument lists and results per invoke channel: each answers a Reply, never a throw. */
export interface IpcInvokeMap {
  [ipcChannels.call]: { args: [op: string, input: unknown]; result: Reply };
  [ipcChannels.shell]: { args: [request: unknown]; result: Reply<string | undefined> };
}

/** Payload per main → renderer channel. */
export interface IpcEventMap {
  [ipcChannels.event]: { event: EventName; payload: unknown };
  [ipcChannels.notificationClick]: { tag: string };
}
