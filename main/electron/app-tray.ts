/**
 * The tray icon: shows the number of pending grants, opens the window, quits the app. The count
 * is updated from outside through `setPendingGrants`, so the core's grant events can drive it.
 */
import { Menu, Tray, nativeImage } from 'electron';
import { trayLabel } from './tray-label';

export interface AppTray {
  setPendingGrants(count: number): void;
  destroy(): void;
}

/** Creates the tray; `show` brings the window up, `quit` quits the app. */
export function createAppTray(iconPath: string, show: () => void, quit: () => void): AppTray {
  const tray = new Tray(nativeImage.createFromPath(iconPath));
  const render = (count: number) => {
    const label = trayLabel(count);
    tray.setToolTip(label.tooltip);
    if (process.platform === 'darwin') tray.setTitle(label.title);
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: label.tooltip, enabled: false },
        { type: 'separator' },
        { label: 'Open MCP Warden', click: show },
        { label: 'Quit', click: quit },
      ]),
    );
  };
  tray.on('click', show);
  render(0);
  return { setPendingGrants: render, destroy: () => tray.destroy() };
}
