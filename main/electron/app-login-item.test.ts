import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HIDDEN_ARG, appAutostart, startedHidden } from './app-login-item';

/** The part of Electron's `app` the login item uses, keeping what was set. */
function fakeApp(isPackaged = true) {
  let openAtLogin = false;
  const calls: unknown[] = [];
  return {
    calls,
    isPackaged,
    getAppPath: () => '/src/warden',
    getLoginItemSettings: (() => ({
      openAtLogin,
      wasOpenedAtLogin: false,
      wasOpenedAsHidden: false,
    })) as never,
    setLoginItemSettings: ((settings: { openAtLogin: boolean }) => {
      calls.push(settings);
      openAtLogin = settings.openAtLogin;
    }) as never,
  };
}

describe('the app’s login item', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'warden-app-login-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('on Linux, is an autostart entry that starts the AppImage hidden, for its state folder', async () => {
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'cfg'),
      APPIMAGE: '/apps/MCP Warden.AppImage',
    };
    const item = appAutostart(fakeApp(), join(home, 'state'), env, 'linux');
    expect((await item.set(true)).enabled).toBe(true);
    const text = await readFile(join(home, 'cfg/autostart/mcp-warden.desktop'), 'utf8');
    expect(text).toContain(
      `Exec=/usr/bin/env WARDEN_HOME=${join(home, 'state')} "/apps/MCP Warden.AppImage" ${HIDDEN_ARG}\n`,
    );
  });

  it('unpackaged, starts Electron with the app folder', async () => {
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'cfg') };
    const item = appAutostart(fakeApp(false), join(home, 'cfg', 'mcp-warden'), env, 'linux');
    await item.set(true);
    const text = await readFile(join(home, 'cfg/autostart/mcp-warden.desktop'), 'utf8');
    expect(text).toMatch(/^Exec=\S+ \/src\/warden --hidden$/m);
  });

  it('on macOS and Windows, is the system’s login item with --hidden', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const app = fakeApp();
      const item = appAutostart(app, join(home, 'state'), {}, platform);
      expect(await item.state()).toMatchObject({ available: true, enabled: false });
      expect((await item.set(true)).enabled).toBe(true);
      expect(app.calls).toEqual([{ openAtLogin: true, openAsHidden: true, args: [HIDDEN_ARG] }]);
      expect((await item.set(false)).enabled).toBe(false);
    }
  });

  it('starts hidden when its login item started it', () => {
    const app = fakeApp();
    expect(startedHidden(app, ['/apps/warden', HIDDEN_ARG], 'linux')).toBe(true);
    expect(startedHidden(app, ['/apps/warden'], 'linux')).toBe(false);
    expect(startedHidden(app, ['/apps/warden'], 'darwin')).toBe(false);
  });
});
