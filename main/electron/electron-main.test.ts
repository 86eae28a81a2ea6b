/**
 * The Electron main process wiring, with a stand-in for the 'electron' module: it starts the real
 * core, answers a trusted `warden:call`, refuses an untrusted one, forwards core events to the
 * window, counts pending grants in the tray, and closes the core before quitting.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const h = vi.hoisted(async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const emitter = new Emitter();
  const app = Object.assign(emitter, {
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
    exit: () => undefined,
  });
  const handlers = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  const windows: { sent: unknown[][]; loaded: string; options: Record<string, unknown> }[] = [];
  const trays: { tooltip: string }[] = [];
  return { app, handlers, windows, trays };
});

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  const { windows, trays, app, handlers } = await h;
  class BrowserWindow extends EventEmitter {
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
  class Tray {
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
  return {
    app,
    BrowserWindow,
    Tray,
    Menu: { buildFromTemplate: (t: unknown) => t },
    Notification: class {
      static isSupported = () => false;
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (s: string) => Buffer.from(s, 'utf8').reverse(),
      decryptString: (b: Buffer) => Buffer.from(b).reverse().toString('utf8'),
    },
    nativeImage: { createFromPath: (p: string) => p },
    dialog: { showErrorBox: () => undefined },
    ipcMain: {
      handle: (channel: string, fn: (...args: unknown[]) => Promise<unknown>) =>
        handlers.set(channel, fn),
      removeHandler: (channel: string) => handlers.delete(channel),
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => undefined },
        setPermissionRequestHandler: () => undefined,
        setPermissionCheckHandler: () => undefined,
        setDevicePermissionHandler: () => undefined,
      },
    },
  };
});

describe('Electron main process', () => {
  it('starts the core, serves trusted IPC only, and closes the core before quitting', async () => {
    const { app, handlers, windows } = await h;
    process.env.WARDEN_GATEWAY_PORT = '0';
    process.env.WARDEN_HOME = await mkdtemp(join(tmpdir(), 'warden-electron-main-'));
    await import('./electron-main');
    await vi.waitFor(() => expect(windows.length).toBe(1));
    expect(app.sandboxed).toBe(true);

    const win = windows[0]!;
    expect(win.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true });
    const renderer = win.loaded;
    expect(renderer.endsWith(join('renderer', 'index.html'))).toBe(true);

    const call = handlers.get('warden:call')!;
    const trusted = { senderFrame: { url: pathToFileURL(renderer).href, parent: null } };
    expect(await call(trusted, 'servers.list', {})).toEqual({ ok: true, value: [] });
    const foreign = { senderFrame: { url: 'https://evil.example/', parent: null } };
    expect(await call(foreign, 'servers.list', {})).toMatchObject({
      ok: false,
      error: { kind: 'unauthorized' },
    });

    const added = await call(trusted, 'servers.add', {
      name: 'files',
      launch: { command: 'npx', args: ['-y', 'files-server'] },
      policy: (await import('../../app/policy/defaults')).defaultPolicy(),
    });
    expect(added).toMatchObject({ ok: true });
    await vi.waitFor(() =>
      expect(
        win.sent.some(
          ([channel, m]) =>
            channel === 'warden:event' && (m as { event: string }).event === 'servers.changed',
        ),
      ).toBe(true),
    );

    app.quit();
    expect(app.quits).toBe(1);
    // The first before-quit is held until the core has closed, then quitting resumes.
    await vi.waitFor(() => expect(app.quits).toBe(2));
  });
});
