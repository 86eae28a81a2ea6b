/**
 * The desktop app's login item. It starts the app with `--hidden`: the core runs in the tray
 * without a window, so AI clients that start after login join it. macOS and Windows keep it among
 * the system's login items (Electron's API); Linux has no such API, so it is an XDG autostart
 * entry (login-item.ts), which starts the AppImage when the app runs from one.
 */
import type { App } from 'electron';
import { homedir } from 'node:os';
import type { AutostartState } from '../../app/contract/autostart';
import { type Autostart, fileAutostart } from '../autostart/login-item';
import { resolveWardenHome } from '../config/warden-home';

/** The argument the login item passes: start in the tray, no window. */
export const HIDDEN_ARG = '--hidden';

const TARGET = 'the Warden app, in the tray (no window opens)';

type LoginApp = Pick<
  App,
  'getLoginItemSettings' | 'setLoginItemSettings' | 'isPackaged' | 'getAppPath'
>;

/** Whether this start of the app came from its login item (then no window opens). */
export function startedHidden(
  app: Pick<App, 'getLoginItemSettings'>,
  argv: readonly string[],
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (argv.includes(HIDDEN_ARG)) return true;
  if (platform !== 'darwin') return false;
  const settings = app.getLoginItemSettings();
  return settings.wasOpenedAtLogin || settings.wasOpenedAsHidden;
}

export function appAutostart(
  app: LoginApp,
  wardenHome: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Autostart {
  if (platform === 'linux') {
    const home = resolveWardenHome({ ...env, WARDEN_HOME: undefined });
    return fileAutostart({
      platform: 'linux',
      home: env.HOME || homedir(),
      xdgConfigHome: env.XDG_CONFIG_HOME,
      login: {
        command: env.APPIMAGE || process.execPath,
        args: [...(app.isPackaged ? [] : [app.getAppPath()]), HIDDEN_ARG],
        env: home === wardenHome ? {} : { WARDEN_HOME: wardenHome },
        target: TARGET,
      },
    });
  }
  const state = (): Promise<AutostartState> =>
    Promise.resolve({
      available: true,
      enabled: app.getLoginItemSettings({ args: [HIDDEN_ARG] }).openAtLogin,
      target: TARGET,
      where:
        platform === 'darwin'
          ? 'System Settings › General › Login Items'
          : 'the Startup apps of Windows settings',
    });
  return {
    state,
    set: (enabled) => {
      app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: enabled, args: [HIDDEN_ARG] });
      return state();
    },
  };
}
