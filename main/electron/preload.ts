/**
 * The preload of the app window (sandboxed, context-isolated): exposes one narrow object,
 * `window.warden`, with one function per contract operation, `on(event, listener)` returning its
 * unsubscribe function, and the desktop shell extras (notification, badge, folder picker, save
 * dialog). Bundled whole, because a sandboxed preload can require only 'electron'.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createWardenApi } from '../../app/contract/api';
import type { Reply } from '../../app/contract/reply';
import { ipcChannels } from './ipc-channels';
import { createPreloadTransport } from './preload-transport';

const shell = async (request: Record<string, unknown>): Promise<string | undefined> => {
  const reply = (await ipcRenderer.invoke(ipcChannels.shell, request)) as Reply<string | undefined>;
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.value;
};

contextBridge.exposeInMainWorld('warden', {
  ...createWardenApi(createPreloadTransport(ipcRenderer)),
  notify: (n: { title: string; body: string; tag: string }) => void shell({ kind: 'notify', ...n }),
  setBadgeCount: (count: number) => void shell({ kind: 'setBadgeCount', count }),
  pickFolder: () => shell({ kind: 'pickFolder' }),
  saveFile: (f: { suggestedName: string; text: string }) => shell({ kind: 'saveFile', ...f }),
  onNotificationClick: (listener: (tag: string) => void) => {
    // Only the tag reaches the page, never the Electron event.
    const handler = (_event: unknown, message: { tag?: unknown }) => {
      if (typeof message?.tag === 'string') listener(message.tag);
    };
    ipcRenderer.on(ipcChannels.notificationClick, handler);
    return () => void ipcRenderer.removeListener(ipcChannels.notificationClick, handler);
  },
});
