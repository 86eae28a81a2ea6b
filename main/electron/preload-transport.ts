/**
 * The contract transport of the sandboxed preload, over `warden:call` and `warden:event`. Only
 * payloads reach the page: never the Electron event object. Errors cross the context bridge as
 * plain `{ name: 'ContractCallError', message, error }` objects, because the bridge keeps only
 * the message of a thrown Error (https://github.com/electron/electron/pull/28346).
 */
import type { ContractTransport } from '../../app/contract/api';
import { type EventName, isEventName } from '../../app/contract/contract';
import type { ContractError } from '../../app/contract/contract-error';
import type { Reply } from '../../app/contract/reply';
import { type IpcEventMap, ipcChannels } from './ipc-channels';

/** The part of Electron's ipcRenderer the transport uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** What a failed call rejects with on the page side of the bridge. */
export interface BridgedContractError {
  name: 'ContractCallError';
  message: string;
  error: ContractError;
}

/** Builds the transport; one IPC listener is shared by every subscriber. */
export function createPreloadTransport(ipc: IpcRendererLike): ContractTransport {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const onMessage = (_event: unknown, message: unknown) => {
    if (typeof message !== 'object' || message === null) return;
    const { event, payload } = message as Partial<IpcEventMap[typeof ipcChannels.event]>;
    if (!isEventName(event)) return;
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };
  let subscribed = false;
  return {
    call: async (name, input) => {
      const reply = (await ipc.invoke(ipcChannels.call, name, input)) as Reply;
      if (reply.ok) return reply.value;
      const rejection: BridgedContractError = {
        name: 'ContractCallError',
        message: reply.error.message,
        error: reply.error,
      };
      // A plain object survives the context bridge whole; an Error would lose `error`.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw rejection;
    },
    on: (event, listener) => {
      if (!isEventName(event) || typeof listener !== 'function') return () => undefined;
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      const wrapped = (payload: unknown) => listener(payload);
      set.add(wrapped);
      if (!subscribed) {
        ipc.on(ipcChannels.event, onMessage);
        subscribed = true;
      }
      return () => {
        set.delete(wrapped);
        if ([...listeners.values()].every((s) => s.size === 0) && subscribed) {
          ipc.removeListener(ipcChannels.event, onMessage);
          subscribed = false;
        }
      };
    },
  };
}
