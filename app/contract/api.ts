/**
 * The client-side face of the contract: one function per operation plus `on` for events. The
 * Electron preload and the WebSocket client both build it from a transport, so the renderer
 * sees one interface whichever way it is connected.
 */
import {
  type EventName,
  type EventPayload,
  type OperationInput,
  type OperationName,
  type OperationOutput,
  operationNames,
} from './contract';

/** Moves a call and events across a process boundary; knows nothing of the operations. */
export interface ContractTransport {
  call(name: OperationName, input: unknown): Promise<unknown>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on(event: EventName, listener: (payload: unknown) => void): () => void;
}

export type WardenApi = {
  [N in OperationName]: (input: OperationInput<N>) => Promise<OperationOutput<N>>;
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/** Builds the typed API over a transport. The core validates every payload it receives. */
export function createWardenApi(transport: ContractTransport): WardenApi {
  const api: Record<string, unknown> = {
    on: (event: EventName, listener: (payload: unknown) => void) => transport.on(event, listener),
  };
  for (const name of operationNames) {
    api[name] = (input: unknown) => transport.call(name, input);
  }
  return api as WardenApi;
}
