/**
 * A stand-in for the 'electron' module, for tests of the main process's wiring in plain Node:
 * `vi.mock('electron', () => import('…/electron-stub'))`, then `electronStub` shows what the
 * process did with it (windows, trays, IPC handlers, error boxes, quits and exits).
 */
import { EventEmitter } from 'node:events';

const handlers = new Map<string, (...args: unknown[]) => Promise<unknown>>();
const windows: BrowserWindow[] = [];
const trays: Tray[] = [];
const errorBoxes: { title: string; content: string }[] = [];
const exits: number[] = [];

const emitter = new EventEmitter();
export const app = Object.assign(emitter, {
  sandboxed: false,
  quits: 0,
  enableSandbox() {
    this.sandboxed = true;
  },
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  isReady: () => true,
  getAppPath: () => '/app',
  quit() {
    this.quits++;
    const event = {
      defaultPrevented: false,
      preventDefault: () => (event.defaultPrevented = true),
    };
    emitter.emit('before-quit', event);
  },
  exit: (code = 0) => void exits.push(code),
});

export const electronStub = { app, handlers, windows, trays, errorBoxes, exits };

export class BrowserWindow extends EventEmitter {
  sent: unknown[][] = [];
  loaded = '';
  webContents = { send: (...args: unknown[]) => this.sent.push(args), isDestroyed: () => false };
  constructor(readonly options: Record<string, unknown>) {
    super();
    windows.push(this);
  }
  loadFile(path: string) {
    this.loaded = path;
    return Promise.resolve();
  }
  isDestroyed = () => false;
  show() {}
  hide() {}
  focus() {}
}

export class Tray {
  tooltip = '';
  constructor() {
    trays.push(this);
  }
  setToolTip(t: string) {
    this.tooltip = t;
  }
  setTitle() {}
  setContextMenu() {}
  on() {}
  destroy() {}
}

export const Menu = { buildFromTemplate: (t: unknown) => t };
export const Notification = class {
  static isSupported = () => false;
};
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (s: string) => Buffer.from(s, 'utf8').reverse(),
  decryptString: (b: Buffer) => Buffer.from(b).reverse().toString('utf8'),
};
export const nativeImage = { createFromPath: (p: string) => p };
export const dialog = {
  showErrorBox: (title: string, content: string) => void errorBoxes.push({ title, content }),
};
export const ipcMain = {
  handle: (channel: string, fn: (...args: unknown[]) => Promise<unknown>) =>
    handlers.set(channel, fn),
  removeHandler: (channel: string) => handlers.delete(channel),
};
export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: () => undefined },
    setPermissionRequestHandler: () => undefined,
    setPermissionCheckHandler: () => undefined,
    setDevicePermissionHandler: () => undefined,
  },
};
