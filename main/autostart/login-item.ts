/**
 * Warden's login item as a file: an XDG autostart entry on Linux
 * (`$XDG_CONFIG_HOME/autostart/mcp-warden.desktop`), a LaunchAgent on macOS
 * (`~/Library/LaunchAgents/com.mcp-warden.login.plist`). The entry starts one fixed command that
 * the core chooses (the app hidden in the tray, or `warden serve --no-open`); nothing from a
 * caller reaches it but on or off. There is one entry per user whichever Warden wrote it: turning
 * it on replaces another Warden's entry (reported beforehand as `other`), turning it off removes
 * it. The entry is on only when the file holds exactly what this core would write.
 */
import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AutostartState } from '../../app/contract/autostart';
import { type Result, err, ok } from '../../app/result';
import { writeFileAtomic } from '../config/atomic-write';

/** What starts at login. */
export interface LoginCommand {
  /** The program, by absolute path. */
  command: string;
  args: readonly string[];
  /** Variables set for it (WARDEN_HOME when it is not the default). */
  env: Readonly<Record<string, string>>;
  /** What it starts, as a person reads it. */
  target: string;
}

/** A core's login item: what it is now, and turning it on or off. */
export interface Autostart {
  state(): Promise<AutostartState>;
  set(enabled: boolean): Promise<AutostartState>;
}

export interface FileAutostartOptions {
  platform: NodeJS.Platform;
  /** The user's home folder. */
  home: string;
  /** `$XDG_CONFIG_HOME`, when set (Linux). */
  xdgConfigHome?: string | undefined;
  login: LoginCommand;
}

const LAUNCH_AGENT_LABEL = 'com.mcp-warden.login';

/** Where the entry lives on `platform`; undefined where Warden keeps none as a file. */
export function loginItemPath(
  platform: NodeJS.Platform,
  home: string,
  xdgConfigHome?: string,
): string | undefined {
  if (platform === 'darwin')
    return join(home, 'Library', 'LaunchAgents', `${LAUNCH_AGENT_LABEL}.plist`);
  if (platform === 'win32') return undefined;
  // The XDG base directory spec: a relative $XDG_CONFIG_HOME is invalid and ignored.
  const config = xdgConfigHome?.startsWith('/') ? xdgConfigHome : join(home, '.config');
  return join(config, 'autostart', 'mcp-warden.desktop');
}

// Characters the Desktop Entry spec reserves in an Exec argument (the argument is then quoted).
const RESERVED = /[\s"'\\><~|&;$*?#()`]/;

/** One Exec argument: `%` doubled (not a field code), quoted where the spec requires it. */
function execArg(arg: string): string {
  const literal = arg.replaceAll('%', '%%');
  if (arg !== '' && !RESERVED.test(arg)) return literal;
  return `"${literal.replace(/["`$\\]/g, '\\$&')}"`;
}

/**
 * The XDG autostart entry that runs `login`. A command, argument or variable with a control
 * character (a newline would start a new key) cannot be written and is refused.
 */
export function desktopEntry(login: LoginCommand): Result<string, string> {
  const words = [
    ...(Object.keys(login.env).length > 0 ? ['/usr/bin/env'] : []),
    ...Object.entries(login.env).map(([name, value]) => `${name}=${value}`),
    login.command,
    ...login.args,
  ];
  // eslint-disable-next-line no-control-regex
  const bad = words.find((w) => /[\u0000-\u001f\u007f]/.test(w));
  if (bad !== undefined)
    return err(
      `a path Warden would start at login holds a control character: ${JSON.stringify(bad)}`,
    );
  // String values escape the backslash once more (the spec applies that before the quoting).
  const exec = words.map(execArg).join(' ').replaceAll('\\', '\\\\');
  return ok(
    [
      '[Desktop Entry]',
      'Type=Application',
      'Name=MCP Warden',
      `Comment=Starts ${login.target} at login, so that AI clients' servers join it`,
      `Exec=${exec}`,
      'Terminal=false',
      'NoDisplay=true',
      'X-GNOME-Autostart-enabled=true',
      '',
    ].join('\n'),
  );
}

const xml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** The LaunchAgent that runs `login` once at login (not kept alive: a stop by the user holds). */
export function launchAgent(login: LoginCommand): Result<string, string> {
  const all = [login.command, ...login.args, ...Object.entries(login.env).flat()];
  // eslint-disable-next-line no-control-regex
  if (all.some((w) => /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(w)))
    return err('a path Warden would start at login holds a character a property list cannot hold');
  const strings = (xs: readonly string[]) => xs.map((x) => `    <string>${xml(x)}</string>`);
  const env = Object.entries(login.env).flatMap(([k, v]) => [
    `    <key>${xml(k)}</key>`,
    `    <string>${xml(v)}</string>`,
  ]);
  return ok(
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
      '<plist version="1.0">',
      '<dict>',
      '  <key>Label</key>',
      `  <string>${LAUNCH_AGENT_LABEL}</string>`,
      '  <key>ProgramArguments</key>',
      '  <array>',
      ...strings([login.command, ...login.args]),
      '  </array>',
      ...(env.length > 0
        ? ['  <key>EnvironmentVariables</key>', '  <dict>', ...env, '  </dict>']
        : []),
      '  <key>RunAtLoad</key>',
      '  <true/>',
      '</dict>',
      '</plist>',
      '',
    ].join('\n'),
  );
}

/** What the entry file starts, as a person reads it (the Exec line, or the whole file's gist). */
function commandIn(text: string, platform: NodeJS.Platform): string {
  if (platform !== 'darwin') {
    const exec = /^Exec=(.*)$/m.exec(text)?.[1];
    return exec?.replaceAll('\\\\', '\\') ?? '(an entry without a command)';
  }
  const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1];
  const words = [...(args ?? '').matchAll(/<string>([^<]*)<\/string>/g)].map((m) => m[1]!);
  return words.length > 0 ? words.join(' ') : '(an entry without a command)';
}

/** The login item kept as a file (Linux, macOS); elsewhere it is reported unavailable. */
export function fileAutostart(options: FileAutostartOptions): Autostart {
  const { platform, login } = options;
  const path = loginItemPath(platform, options.home, options.xdgConfigHome);
  const content = path
    ? platform === 'darwin'
      ? launchAgent(login)
      : desktopEntry(login)
    : err('Warden starts at login from the desktop app on Windows, not from `warden serve`.');
  const base = { target: login.target, where: path ?? 'none' };

  const state = async (): Promise<AutostartState> => {
    if (!path || !content.ok) {
      const reason = content.ok ? 'not supported here' : content.error;
      return { ...base, available: false, enabled: false, reason };
    }
    const info = await lstat(path).catch(() => undefined);
    if (!info) return { ...base, available: true, enabled: false };
    if (!info.isFile())
      return { ...base, available: true, enabled: false, other: '(not a regular file)' };
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === content.value) return { ...base, available: true, enabled: true };
    return {
      ...base,
      available: true,
      enabled: false,
      other: text === undefined ? '(unreadable)' : commandIn(text, platform),
    };
  };

  return {
    state,
    async set(enabled) {
      const now = await state();
      if (!now.available || !path || !content.ok) return now;
      if (enabled) {
        await mkdir(dirname(path), { recursive: true });
        // Renamed over the path: a symlink there is replaced, never followed.
        await writeFileAtomic(path, content.value);
      } else {
        await rm(path, { force: true });
      }
      return state();
    },
  };
}
