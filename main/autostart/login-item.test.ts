import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type LoginCommand,
  desktopEntry,
  fileAutostart,
  launchAgent,
  loginItemPath,
} from './login-item';
import { serveAutostart } from './serve-login';
import { execWords } from '../../test/helpers/desktop-exec';

const login = (over: Partial<LoginCommand> = {}): LoginCommand => ({
  command: '/opt/warden/bin/warden',
  args: ['serve', '--no-open'],
  env: {},
  target: '`warden serve`',
  ...over,
});

describe('the XDG autostart entry', () => {
  it('writes a command with spaces, quotes, $, % and backslashes so that it reads back the same', () => {
    const odd = login({
      command: '/home/a b/My "Apps"/$HOME/50%/x\\y/warden',
      args: ['serve', '--no-open', 'it`s'],
      env: { WARDEN_HOME: '/home/a b/state' },
    });
    const entry = desktopEntry(odd);
    expect(entry.ok).toBe(true);
    const exec = /^Exec=(.*)$/m.exec(entry.ok ? entry.value : '')![1]!;
    expect(execWords(exec)).toEqual([
      '/usr/bin/env',
      'WARDEN_HOME=/home/a b/state',
      '/home/a b/My "Apps"/$HOME/50%/x\\y/warden',
      'serve',
      '--no-open',
      'it`s',
    ]);
  });

  it('refuses a command with a newline (it would start a new key) or another control character', () => {
    for (const command of ['/tmp/x\nExec=/bin/evil', '/tmp/x\u0007y']) {
      const entry = desktopEntry(login({ command }));
      expect(entry.ok).toBe(false);
    }
  });

  it('lives under $XDG_CONFIG_HOME when it is absolute, else under ~/.config', () => {
    expect(loginItemPath('linux', '/home/u', '/x/cfg')).toBe('/x/cfg/autostart/mcp-warden.desktop');
    expect(loginItemPath('linux', '/home/u', 'relative')).toBe(
      '/home/u/.config/autostart/mcp-warden.desktop',
    );
    expect(loginItemPath('darwin', '/Users/u')).toBe(
      '/Users/u/Library/LaunchAgents/com.mcp-warden.login.plist',
    );
    expect(loginItemPath('win32', 'C:\\Users\\u')).toBeUndefined();
  });
});

describe('the LaunchAgent', () => {
  it('escapes what XML would read as markup', () => {
    const agent = launchAgent(
      login({ command: '/Apps/<a>&"b"/warden', env: { WARDEN_HOME: "/s'&" } }),
    );
    expect(agent.ok).toBe(true);
    const text = agent.ok ? agent.value : '';
    expect(text).toContain('<string>/Apps/&lt;a&gt;&amp;&quot;b&quot;/warden</string>');
    expect(text).toContain('<string>/s&apos;&amp;</string>');
    expect(text).toContain('<key>RunAtLoad</key>');
    expect(text).not.toContain('KeepAlive');
  });
});

describe('fileAutostart', () => {
  let home: string;
  let xdg: string;
  let entry: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'warden-login-'));
    xdg = join(home, 'cfg');
    entry = join(xdg, 'autostart', 'mcp-warden.desktop');
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const linux = (l = login()) =>
    fileAutostart({ platform: 'linux', home, xdgConfigHome: xdg, login: l });

  it('is off without an entry, on once set (a private file), off again once removed', async () => {
    const item = linux();
    expect(await item.state()).toMatchObject({ available: true, enabled: false, where: entry });
    expect((await item.set(true)).enabled).toBe(true);
    expect((await stat(entry)).mode & 0o777).toBe(0o600);
    expect(await readFile(entry, 'utf8')).toMatch(
      /^Exec=\/opt\/warden\/bin\/warden serve --no-open$/m,
    );
    expect(await linux().state()).toMatchObject({ enabled: true });
    expect((await item.set(false)).enabled).toBe(false);
    await expect(lstat(entry)).rejects.toThrow();
    // Off when already off is no error.
    expect((await item.set(false)).enabled).toBe(false);
  });

  it('reports an entry that starts something else, and replaces it when turned on', async () => {
    await mkdir(join(xdg, 'autostart'), { recursive: true });
    await writeFile(entry, '[Desktop Entry]\nExec=/usr/bin/other --flag\n');
    expect(await linux().state()).toMatchObject({ enabled: false, other: '/usr/bin/other --flag' });
    // Another Warden's entry (another install or state folder) is not taken for this one.
    await linux(login({ command: '/elsewhere/warden' })).set(true);
    expect(await linux().state()).toMatchObject({
      enabled: false,
      other: '/elsewhere/warden serve --no-open',
    });
    expect((await linux().set(true)).enabled).toBe(true);
  });

  it('replaces a symlink at the entry path instead of writing through it', async () => {
    await mkdir(join(xdg, 'autostart'), { recursive: true });
    const target = join(home, 'victim');
    await writeFile(target, 'untouched');
    await symlink(target, entry);
    expect(await linux().state()).toMatchObject({ enabled: false, other: '(not a regular file)' });
    expect((await linux().set(true)).enabled).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('untouched');
    expect((await lstat(entry)).isSymbolicLink()).toBe(false);
    await linux().set(false);
    expect(await readFile(target, 'utf8')).toBe('untouched');
  });

  it('cannot be turned on with a command it cannot write, and says why', async () => {
    const item = linux(login({ command: '/tmp/a\nb' }));
    const state = await item.set(true);
    expect(state).toMatchObject({ available: false, enabled: false });
    expect(state.reason).toMatch(/control character/);
    await expect(lstat(entry)).rejects.toThrow();
  });

  it('is unavailable on Windows, where the app keeps the login item', async () => {
    const state = await fileAutostart({ platform: 'win32', home, login: login() }).state();
    expect(state).toMatchObject({ available: false, enabled: false });
    expect(state.reason).toMatch(/desktop app/);
  });

  it('writes a LaunchAgent on macOS', async () => {
    const item = fileAutostart({ platform: 'darwin', home, login: login() });
    expect((await item.set(true)).enabled).toBe(true);
    const text = await readFile(
      join(home, 'Library/LaunchAgents/com.mcp-warden.login.plist'),
      'utf8',
    );
    expect(text).toContain('<string>/opt/warden/bin/warden</string>');
  });
});

describe('serveAutostart', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'warden-login-serve-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it.skipIf(process.platform !== 'linux')(
    'starts this install’s warden serve for the same state folder and gateway port',
    async () => {
      const state = join(home, 'state');
      const item = serveAutostart(state, 48000, { HOME: home, XDG_CONFIG_HOME: join(home, 'cfg') });
      expect((await item.set(true)).enabled).toBe(true);
      const text = await readFile(join(home, 'cfg/autostart/mcp-warden.desktop'), 'utf8');
      const words = execWords(/^Exec=(.*)$/m.exec(text)![1]!);
      expect(words.slice(0, 2)).toEqual(['/usr/bin/env', `WARDEN_HOME=${state}`]);
      expect(words.slice(-5)).toEqual([
        'serve',
        '--no-open',
        '--no-token',
        '--gateway-port',
        '48000',
      ]);
      expect(words.some((w) => w.endsWith('/warden') || w.endsWith('/warden.js'))).toBe(true);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'names no WARDEN_HOME for the default state folder of the environment it is given',
    async () => {
      const cfg = join(home, 'cfg');
      const item = serveAutostart(join(cfg, 'mcp-warden'), 0, { HOME: home, XDG_CONFIG_HOME: cfg });
      await item.set(true);
      const text = await readFile(join(cfg, 'autostart/mcp-warden.desktop'), 'utf8');
      expect(text).not.toContain('WARDEN_HOME');
      expect(execWords(/^Exec=(.*)$/m.exec(text)![1]!).slice(-3)).toEqual([
        'serve',
        '--no-open',
        '--no-token',
      ]);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'leaves a random gateway port (0) out: the next login takes the default one',
    async () => {
      const item = serveAutostart(join(home, 'state'), 0, { HOME: home, XDG_CONFIG_HOME: home });
      await item.set(true);
      const text = await readFile(join(home, 'autostart/mcp-warden.desktop'), 'utf8');
      expect(text).toMatch(/ serve --no-open --no-token$/m);
    },
  );
});
