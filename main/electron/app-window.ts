/**
 * The app window: context-isolated, sandboxed, no Node, no webviews, showing the built renderer
 * from disk. Closing it hides it; the app keeps running in the tray until the user quits.
 */
import { BrowserWindow } from 'electron';

export interface AppWindowOptions {
  preload: string;
  rendererIndex: string;
  icon?: string;
  /** True once the user asked to quit: then closing really closes. */
  isQuitting: () => boolean;
}

/** Creates and loads the window. */
export function createAppWindow(options: AppWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'MCP Warden',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // Middle-click would otherwise ask for a new window (denied anyway by the open handler).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  win.once('ready-to-show', () => win.show());
  win.on('close', (event) => {
    if (options.isQuitting()) return;
    event.preventDefault();
    win.hide();
  });
  void win.loadFile(options.rendererIndex);
  return win;
}
