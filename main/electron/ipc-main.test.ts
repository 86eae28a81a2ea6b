/**
 * The IPC wrapper every invoke channel goes through, with a stand-in for ipcMain and plain event
 * objects: the sender is checked before any handler runs, on every channel, and refusals and
 * failures come back as one Reply shape.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createInvokeHandlers, type IpcMainLike } from './ipc-main';
import { ipcChannels } from './ipc-channels';

const index = '/opt/MCP Warden/resources/app.asar/out/renderer/index.html';
type Listener = (event: unknown, ...args: unknown[]) => unknown;

function fakeIpcMain() {
  const listeners = new Map<string, Listener>();
  const ipcMain = {
    handle: (channel: string, listener: Listener) => void listeners.set(channel, listener),
    removeHandler: (channel: string) => void listeners.delete(channel),
  } as unknown as IpcMainLike;
  const invoke = (channel: string, event: unknown, ...args: unknown[]) =>
    listeners.get(channel)!(event, ...args);
  return { ipcMain, listeners, invoke };
}

const frame = (url: string, parent: unknown = null) => ({ senderFrame: { url, parent } });
const trusted = frame(pathToFileURL(index).href);
const untrusted = [
  frame('https://evil.example/'),
  frame(pathToFileURL('/tmp/index.html').href),
  frame(pathToFileURL(index).href, { url: 'https://evil.example/' }),
  { senderFrame: null },
];

describe('the IPC invoke wrapper', () => {
  it('runs the handler for the top frame of the app renderer, with the arguments only', async () => {
    const { ipcMain, invoke } = fakeIpcMain();
    const handle = createInvokeHandlers(ipcMain, index);
    const seen: unknown[][] = [];
    handle(ipcChannels.call, (...args) => {
      seen.push(args);
      return Promise.resolve({ ok: true, value: 'done' });
    });
    expect(await invoke(ipcChannels.call, trusted, 'servers.list', {})).toEqual({
      ok: true,
      value: 'done',
    });
    expect(seen).toEqual([['servers.list', {}]]);
  });

  it('refuses every other sender on every channel before the handler runs', async () => {
    const { ipcMain, invoke } = fakeIpcMain();
    const handle = createInvokeHandlers(ipcMain, index);
    let ran = 0;
    const count = () => {
      ran++;
      return Promise.resolve({ ok: true as const, value: undefined });
    };
    handle(ipcChannels.call, count);
    handle(ipcChannels.shell, count);
    for (const channel of [ipcChannels.call, ipcChannels.shell]) {
      for (const event of untrusted) {
        expect(await invoke(channel, event, { kind: 'pickFolder' })).toEqual({
          ok: false,
          error: { kind: 'unauthorized', message: 'IPC from an untrusted frame' },
        });
      }
    }
    expect(ran).toBe(0);
  });

  it('answers a failing handler with an internal error that hides its details', async () => {
    const { ipcMain, invoke } = fakeIpcMain();
    const errors: unknown[] = [];
    const handle = createInvokeHandlers(ipcMain, index, (e) => errors.push(e));
    handle(ipcChannels.call, () => Promise.reject(new Error('secret internals')));
    const reply = await invoke(ipcChannels.call, trusted, 'x', {});
    expect(reply).toEqual({
      ok: false,
      error: { kind: 'internal', message: 'the core failed to answer' },
    });
    expect(JSON.stringify(reply)).not.toContain('secret internals');
    expect(errors).toHaveLength(1);
  });

  it('removes the handler it registered', () => {
    const { ipcMain, listeners } = fakeIpcMain();
    const remove = createInvokeHandlers(ipcMain, index)(ipcChannels.shell, () =>
      Promise.resolve({ ok: true, value: undefined }),
    );
    expect(listeners.has(ipcChannels.shell)).toBe(true);
    remove();
    expect(listeners.has(ipcChannels.shell)).toBe(false);
  });
});
