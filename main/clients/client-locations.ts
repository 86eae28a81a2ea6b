/**
 * Where each AI client keeps its MCP config on this OS: the user-wide file and, for clients
 * with per-project files, the one in the current project. A path the user picks replaces both.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientId } from '../../app/clients/client-formats';

export interface ClientLocation {
  path: string;
  scope: 'user' | 'project' | 'picked';
  /** The project folder of a project file (for `${workspaceFolder}`). */
  workspace?: string;
  /** A folder whose existence means the client is installed even without this file. */
  installDir?: string;
}

export interface LocationContext {
  home: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The project folder for project-scoped files. */
  cwd: string;
}

/** The context of the running process. */
export function currentLocationContext(): LocationContext {
  return { home: homedir(), platform: process.platform, env: process.env, cwd: process.cwd() };
}

function appData(ctx: LocationContext): string {
  return ctx.env.APPDATA ?? join(ctx.home, 'AppData', 'Roaming');
}

/** The folder where desktop apps keep their settings (per platform). */
function appConfigDir(ctx: LocationContext): string {
  if (ctx.platform === 'darwin') return join(ctx.home, 'Library', 'Application Support');
  if (ctx.platform === 'win32') return appData(ctx);
  return ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config');
}

/** The config files of `client`, user file first; a project file that is the user file counts once. */
export function clientLocations(client: ClientId, ctx: LocationContext): ClientLocation[] {
  const all = allLocations(client, ctx);
  return all.filter((l, i) => all.findIndex((o) => o.path === l.path) === i);
}

function allLocations(client: ClientId, ctx: LocationContext): ClientLocation[] {
  const project = (path: string): ClientLocation => ({
    path,
    scope: 'project',
    workspace: ctx.cwd,
  });
  switch (client) {
    case 'claude-desktop': {
      const dir = join(appConfigDir(ctx), 'Claude');
      return [{ path: join(dir, 'claude_desktop_config.json'), scope: 'user', installDir: dir }];
    }
    case 'claude-code':
      return [
        {
          path: join(ctx.home, '.claude.json'),
          scope: 'user',
          installDir: join(ctx.home, '.claude'),
        },
        project(join(ctx.cwd, '.mcp.json')),
      ];
    case 'cursor':
      return [
        {
          path: join(ctx.home, '.cursor', 'mcp.json'),
          scope: 'user',
          installDir: join(ctx.home, '.cursor'),
        },
        project(join(ctx.cwd, '.cursor', 'mcp.json')),
      ];
    case 'vscode': {
      const dir = join(appConfigDir(ctx), 'Code', 'User');
      return [
        { path: join(dir, 'mcp.json'), scope: 'user', installDir: dir },
        project(join(ctx.cwd, '.vscode', 'mcp.json')),
      ];
    }
    case 'windsurf': {
      const dir = join(ctx.home, '.codeium', 'windsurf');
      return [{ path: join(dir, 'mcp_config.json'), scope: 'user', installDir: dir }];
    }
    case 'zed': {
      const dir =
        ctx.platform === 'win32'
          ? join(appData(ctx), 'Zed')
          : join(ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config'), 'zed');
      return [{ path: join(dir, 'settings.json'), scope: 'user', installDir: dir }];
    }
  }
}

/** Preset placeholders for this machine: home, cache and data folders. */
export function presetPlaces(ctx: LocationContext): {
  home: string;
  cache: string;
  dataHome: string;
} {
  if (ctx.platform === 'darwin')
    return {
      home: ctx.home,
      cache: join(ctx.home, 'Library', 'Caches'),
      dataHome: join(ctx.home, 'Library', 'Application Support'),
    };
  if (ctx.platform === 'win32')
    return {
      home: ctx.home,
      cache: ctx.env.LOCALAPPDATA ?? join(ctx.home, 'AppData', 'Local'),
      dataHome: ctx.env.LOCALAPPDATA ?? join(ctx.home, 'AppData', 'Local'),
    };
  return {
    home: ctx.home,
    cache: ctx.env.XDG_CACHE_HOME || join(ctx.home, '.cache'),
    dataHome: ctx.env.XDG_DATA_HOME || join(ctx.home, '.local', 'share'),
  };
}
