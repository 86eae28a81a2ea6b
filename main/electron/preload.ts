/**
 * The preload of the app window (sandboxed, context-isolated): exposes one narrow object,
 * `window.warden`, with one function per contract operation and `on(event, listener)` returning
 * its unsubscribe function. Bundled whole, because a sandboxed preload can require only
 * 'electron'.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createWardenApi } from '../../app/contract/api';
import { createPreloadTransport } from './preload-transport';

contextBridge.exposeInMainWorld('warden', createWardenApi(createPreloadTransport(ipcRenderer)));
