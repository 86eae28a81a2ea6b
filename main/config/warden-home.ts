/** Where Warden keeps its state: `$WARDEN_HOME`, else the platform's config directory. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Resolves the state directory for this user and platform. */
export function resolveWardenHome(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.WARDEN_HOME;
  if (explicit && explicit.trim() !== '') return explicit;
  const home = homedir();
  switch (process.platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'mcp-warden');
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'mcp-warden');
    default:
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'mcp-warden');
  }
}
