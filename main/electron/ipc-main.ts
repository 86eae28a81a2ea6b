/**
 * Typed wrappers over `ipcMain.handle` and `webContents.send`: the only code in the main process
 * that touches IPC, naming channels through ipc-channels.ts. Every invoke channel goes through
 * `createInvokeHandlers`, which checks the sender before any handler runs and answers every
 * refusal and failure as a Reply, so no handler can forget the check and no error is thrown
 * across IPC.
 */
import type { IpcMainInvokeEvent, WebContents } from 'electron';
import type { Reply } from '../../app/contract/reply';
import type { IpcEventMap, IpcInvokeMap } from './ipc-channels';
import { type SenderLike, trustedSender } from './trusted-sender';

/** The part of Electron's ipcMain the wrapper uses. */
export interface IpcMainLike {
  handle(
    channel: string,
    listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown,
  ): void;
  removeHandler(channel: string): void;
}

/** A handler sees only the arguments, never the Electron event; it answers with a Reply. */
export type InvokeHandler<C extends keyof IpcInvokeMap> = (
  ...args: unknown[]
) => Promise<IpcInvokeMap[C]['result']>;

export const untrustedSenderReply: Reply<never> = {
  ok: false,
  error: { kind: 'unauthorized', message: 'IPC from an untrusted frame' },
};

export const internalFailureReply: Reply<never> = {
  ok: false,
  error: { kind: 'internal', message: 'the core failed to answer' },
};

/**
 * Builds the registrar of invoke handlers for the renderer at `rendererIndex`: a call from any
 * other frame (an iframe, a page navigated elsewhere, a destroyed frame) is refused before its
 * handler runs; a handler that throws answers `internal` without its details.
 */
export function createInvokeHandlers(
  ipcMain: IpcMainLike,
  rendererIndex: string,
  onError: (error: unknown) => void = () => undefined,
): <C extends keyof IpcInvokeMap>(channel: C, handler: InvokeHandler<C>) => () => void {
  const isTrusted = trustedSender(rendererIndex);
  return (channel, handler) => {
    ipcMain.handle(channel, async (event: SenderLike, ...args: unknown[]) => {
      if (!isTrusted(event)) return untrustedSenderReply;
      try {
        return await handler(...args);
      } catch (error) {
        onError(error);
        return internalFailureReply;
      }
    });
    return () => ipcMain.removeHandler(channel);
  };
}

/** Sends one message on a main → renderer channel, if the contents is still alive. */
export function sendToRenderer<C extends keyof IpcEventMap>(
  contents: WebContents,
  channel: C,
  message: IpcEventMap[C],
): void {
  if (!contents.isDestroyed()) contents.send(channel, message);
}
