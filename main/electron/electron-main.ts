/**
 * The Electron main process: hardens Electron, starts the same core as `warden serve`, shows the
 * renderer in one sandboxed window, wires the contract over IPC, and keeps running in the tray
 * when the window closes. Quitting closes the core, which stops every instance.
 */
import {
  BrowserWindow,
  Notification,
  app,
  dialog,
  ipcMain,
  safeStorage,
  session,
  shell,
} from 'electron';
import { join } from 'node:path';
import { openRunningPanel } from '../cli/open-command';
import { resolveWardenHome } from '../config/warden-home';
import { type Core, createCore } from '../core/core';
import { type ControlChannel, listenControlChannel } from '../core/control-channel';
import { type CoreLock, type CoreLockRefused, acquireCoreLock } from '../core/core-lock';
import { notifyInbox } from '../core/inbox-notifier';
import { OPEN_PANEL_OP } from '../core/open-panel';
import { RemediedError, remedyOf } from '../core/remedied-error';
import { DEFAULT_GATEWAY_PORT, type FrontDoors } from '../gateway/front-doors';
import { startGateway } from '../gateway/start-gateway';
import { safeStorageSecretStore } from './safe-storage-secret-store';
import { type ShellPlatform, createShellHandler } from './shell-requests';
import { appAutostart, startedHidden } from './app-login-item';
import { type AppTray, createAppTray } from './app-tray';
import { createAppWindow } from './app-window';
import { createCallHandler } from './call-handler';
import { dialogPicks } from './dialog-picks';
import { hardenSession, hardenWebContents } from './harden';
import { createInvokeHandlers, sendToRenderer } from './ipc-main';
import { ipcChannels } from './ipc-channels';

const rendererIndex = join(__dirname, '..', 'renderer', 'index.html');
const preload = join(__dirname, 'preload.cjs');
const icons = join(app.getAppPath(), 'resources', 'icons');

let core: Core | undefined;
let doors: FrontDoors | undefined;
let lock: CoreLock | undefined;
let control: ControlChannel | undefined;
let window: BrowserWindow | undefined;
let tray: AppTray | undefined;
let quitting = false;
const pending = { 'grants.changed': 0, 'approvals.changed': 0 };
let coreClosed = false;

app.enableSandbox();
hardenWebContents(app);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  // A failure anywhere in the start (an audit log that cannot be opened, say) is shown and ends
  // the app, which never runs on without its core.
  app.whenReady().then(start).catch(fail);
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  const wardenHome = resolveWardenHome();
  const locked = await acquireCoreLock(wardenHome, 'the Warden app');
  if (!locked.ok) return showRunningCore(wardenHome, locked.error);
  lock = locked.value;
  core = await createCore({
    wardenHome,
    secretStore: safeStorageSecretStore(wardenHome, safeStorage),
    // An OAuth sign-in page opens in the system browser (checked https or loopback beforehand).
    openExternal: (url) => shell.openExternal(url.href),
    autostart: appAutostart(app, wardenHome, process.env),
  });
  // A taken port is shown in red by the UI (gateway.status), with its owner and the remedy.
  const gateway = await startGateway(
    core,
    Number(process.env.WARDEN_GATEWAY_PORT ?? DEFAULT_GATEWAY_PORT),
  );
  doors = gateway.doors;
  if (!doors)
    console.error('warden: the MCP gateway is not running:', gateway.error ?? gateway.status);
  // `warden open` brings the window up.
  const served = core;
  control = await listenControlChannel({
    wardenHome,
    handle: (op, input) => {
      if (op !== OPEN_PANEL_OP) return served.handle(op, input);
      showWindow();
      return Promise.resolve({ ok: true, value: { kind: 'window' } });
    },
  });
  const handleInvoke = createInvokeHandlers(ipcMain, rendererIndex, (error) =>
    console.error('warden: IPC call failed', error),
  );
  handleInvoke(ipcChannels.call, createCallHandler(core));
  handleInvoke(
    ipcChannels.shell,
    createShellHandler(desktopPlatform(), (tag) => {
      showWindow();
      if (window) sendToRenderer(window.webContents, ipcChannels.notificationClick, { tag });
    }),
  );
  core.subscribe((event, payload) => {
    if (window) sendToRenderer(window.webContents, ipcChannels.event, { event, payload });
    const name: string = event;
    if (name === 'grants.changed' || name === 'approvals.changed') {
      // The page raises the notification (it knows which item to open on a click).
      pending[name] = Array.isArray(payload) ? payload.length : 0;
      setPendingGrants(pending['grants.changed'] + pending['approvals.changed']);
    }
  });
  // Started hidden at login, no page runs to announce what waits in the Inbox: this process does,
  // while no window exists (then the page does, and knows which item a click opens).
  const platform = desktopPlatform();
  notifyInbox(core, (notice) => platform.notify(notice, showWindow), {
    wanted: () => !window || window.isDestroyed(),
  });
  // macOS menu-bar icons are black template images the system tints; elsewhere a colour icon.
  const trayIcon = process.platform === 'darwin' ? 'trayTemplate.png' : 'tray-32.png';
  tray = createAppTray(join(icons, 'tray', trayIcon), showWindow, () => app.quit());
  // Started by its login item: the core runs in the tray; the window opens from there.
  if (!startedHidden(app, process.argv)) showWindow();
}

function showWindow(): void {
  if (!app.isReady() || !core) return;
  if (!window || window.isDestroyed()) {
    window = createAppWindow({
      preload,
      rendererIndex,
      icon: join(icons, '512x512.png'),
      isQuitting: () => quitting,
    });
    return;
  }
  window.show();
  window.focus();
}

/** The Electron side of the page's desktop requests (system notification, badge, dialogs). */
function desktopPlatform(): ShellPlatform {
  return {
    notify: (notice, onClick) => {
      if (!Notification.isSupported()) return;
      const note = new Notification(notice);
      note.on('click', onClick);
      note.show();
    },
    setBadgeCount: (count) => void app.setBadgeCount(count),
    ...dialogPicks(dialog, () => (window && !window.isDestroyed() ? window : undefined)),
  };
}

/**
 * Another Warden holds this state folder (`warden serve`, started at login, say): its control
 * panel opens in the browser, and the app says so and quits; started hidden at login itself, it
 * only quits. When that Warden does not answer, the refusal is shown as before.
 */
async function showRunningCore(wardenHome: string, refused: CoreLockRefused): Promise<void> {
  const hidden = startedHidden(app, process.argv);
  const opened = hidden
    ? undefined
    : await openRunningPanel({ wardenHome, openBrowser: (url) => void shell.openExternal(url) });
  if (!hidden && opened?.kind === 'none') throw new RemediedError(refused.message, refused.remedy);
  if (hidden) console.error(`warden: ${refused.message}; the app started at login quits`);
  else
    await dialog.showMessageBox({
      type: 'info',
      title: 'MCP Warden',
      message: `${refused.message}.`,
      detail:
        opened?.kind === 'window'
          ? 'Its window is shown.'
          : `Its control panel opens in your browser. To use the app instead, stop it first (kill ${refused.owner.pid}), and turn off its start at login with "warden autostart off".`,
    });
  app.quit();
}

/** Updates the tray with the number of grants and approvals waiting for the user. */
function setPendingGrants(count: number): void {
  tray?.setPendingGrants(count);
}

function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const remedy = remedyOf(error);
  dialog.showErrorBox('MCP Warden could not start', remedy ? `${message}\n\n${remedy}` : message);
  app.exit(1);
}

// The window hides on close; the app lives on in the tray until the user quits.
app.on('window-all-closed', () => undefined);
app.on('activate', () => showWindow());

app.on('before-quit', (event) => {
  quitting = true;
  if (coreClosed || !core) return;
  event.preventDefault();
  (doors?.close() ?? Promise.resolve())
    .then(() => control?.close())
    .then(() => core?.close())
    .then(() => lock?.release())
    .catch((error: unknown) => console.error('warden: closing the core failed', error))
    .finally(() => {
      coreClosed = true;
      tray?.destroy();
      app.quit();
    });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
