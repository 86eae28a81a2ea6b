import { describe, expect, it } from 'vitest';
import { createWardenApi } from '../../app/contract/api';
import { ipcChannels } from './ipc-channels';
import { type IpcRendererLike, createPreloadTransport } from './preload-transport';

type Listener = (event: unknown, ...args: unknown[]) => void;

function fakeIpc(reply: unknown) {
  const listeners = new Map<string, Set<Listener>>();
  const invoked: unknown[][] = [];
  const ipc: IpcRendererLike = {
    invoke: (channel, ...args) => {
      invoked.push([channel, ...args]);
      return Promise.resolve(reply);
    },
    on: (channel, listener) =>
      listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
  const emit = (message: unknown) => {
    const electronEvent = { sender: 'ipcRenderer', ports: [] };
    for (const l of listeners.get(ipcChannels.event) ?? []) l(electronEvent, message);
  };
  return { ipc, invoked, emit, count: () => listeners.get(ipcChannels.event)?.size ?? 0 };
}

describe('preload transport', () => {
  it('invokes warden:call with the operation and input and returns the value', async () => {
    const fake = fakeIpc({ ok: true, value: [] });
    const api = createWardenApi(createPreloadTransport(fake.ipc));
    expect(await api['servers.list']({})).toEqual([]);
    expect(fake.invoked).toEqual([[ipcChannels.call, 'servers.list', {}]]);
  });

  it('rejects with a plain object carrying the whole contract error', async () => {
    const error = { kind: 'not-found', message: 'no server named "x"' };
    const fake = fakeIpc({ ok: false, error });
    const api = createWardenApi(createPreloadTransport(fake.ipc));
    const rejection: unknown = await api['servers.get']({ name: 'x' }).catch((e: unknown) => e);
    expect(rejection).toEqual({ name: 'ContractCallError', message: error.message, error });
    expect(rejection instanceof Error).toBe(false);
  });

  it('gives listeners the payload only, never the Electron event, and unsubscribes', () => {
    const fake = fakeIpc(undefined);
    const transport = createPreloadTransport(fake.ipc);
    const seen: unknown[][] = [];
    const off = transport.on('servers.changed', (...args: unknown[]) => seen.push(args));
    const offOther = transport.on('config.problem', () => seen.push(['wrong']));
    expect(fake.count()).toBe(1);
    fake.emit({ event: 'servers.changed', payload: [1] });
    fake.emit({ event: 'not.an.event', payload: 2 });
    fake.emit('garbage');
    fake.emit(null);
    expect(seen).toEqual([[[1]]]);
    off();
    offOther();
    expect(fake.count()).toBe(0);
    fake.emit({ event: 'servers.changed', payload: [3] });
    expect(seen).toEqual([[[1]]]);
  });

  it('ignores subscriptions to unknown events', () => {
    const fake = fakeIpc(undefined);
    const transport = createPreloadTransport(fake.ipc);
    const off = transport.on('nope' as 'servers.changed', () => undefined);
    expect(fake.count()).toBe(0);
    off();
  });
});
