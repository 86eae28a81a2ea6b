/** How a client's config starts Warden, for each runtime and layout. */
import { describe, expect, it } from 'vitest';
import { type WardenRuntime, wardenCommandFor } from '../../main/clients/clients-context';

const home = '/home/u/.config/other-warden';
const files =
  (...paths: string[]) =>
  (p: string) =>
    paths.includes(p);
const node: WardenRuntime = {
  platform: 'linux',
  execPath: '/usr/bin/node',
  electron: false,
  bin: '/opt/warden/bin/warden.js',
  exists: files('/opt/warden/bin/warden'),
};

describe('wardenCommandFor', () => {
  it('starts the shell front under Node on Linux and macOS, with this Node for the rest', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(wardenCommandFor(home, { ...node, platform })).toEqual({
        command: '/opt/warden/bin/warden',
        args: [],
        env: { WARDEN_HOME: home, WARDEN_NODE: '/usr/bin/node' },
      });
    }
  });

  it('starts bin/warden.js on Node where there is no front, and on Windows', () => {
    const plain = { command: '/usr/bin/node', args: ['/opt/warden/bin/warden.js'] };
    expect(wardenCommandFor(home, { ...node, exists: files() })).toMatchObject(plain);
    expect(wardenCommandFor(home, { ...node, platform: 'win32' })).toMatchObject(plain);
  });

  it("starts a packaged app's launcher, which knows its runtime", () => {
    const app: WardenRuntime = {
      platform: 'linux',
      execPath: '/opt/MCP Warden/mcp-warden',
      electron: true,
      resourcesPath: '/opt/MCP Warden/resources',
      bin: '/opt/MCP Warden/resources/app.asar/bin/warden.js',
      exists: files('/opt/MCP Warden/resources/bin/warden'),
    };
    expect(wardenCommandFor(home, app)).toEqual({
      command: '/opt/MCP Warden/resources/bin/warden',
      args: [],
      env: { WARDEN_HOME: home },
    });
    // Unpackaged (no launcher there): the app's runtime in Node mode.
    expect(wardenCommandFor(home, { ...app, exists: files() })).toEqual({
      command: '/opt/MCP Warden/mcp-warden',
      args: ['/opt/MCP Warden/resources/app.asar/bin/warden.js'],
      env: { WARDEN_HOME: home, ELECTRON_RUN_AS_NODE: '1' },
    });
  });
});
