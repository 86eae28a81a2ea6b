/**
 * Typed wrappers over `ipcMain.handle` and `webContents.send`: the only code in the main process
 * that touches IPC, naming channels through ipc-channels.ts.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { IpcEventMap, IpcInvokeMap } from './ipc-channels';

/** Registers the handler of one invoke channel. */
export function handleInvoke<C extends keyof IpcInvokeMap>(
  ipcMain: IpcMain,
  channel: C,
  handler: (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<IpcInvokeMap[C]['result']>,
): () => void {
  ipcMain.handle(channel, handler);
  return () => ipcMain.removeHandler(channel);
}

/** Sends one message on a main → renderer channel, if the contents is still alive. */
export function sendToRenderer<C extends keyof IpcEventMap>(
  contents: WebContents,
  channel: C,
  message: IpcEventMap[C],
): void {
  if (!contents.isDestroyed()) contents.send(channel, message);
}
