/**
 * Opens a URL in the user's browser, best effort: a failure only means no window. `$BROWSER`
 * (a command, or a list separated by `:`; `%s` stands for the URL) is used first when set, as
 * Python's `webbrowser` and `xdg-open` do, then the platform's opener.
 */
import { spawn } from 'node:child_process';

/** The opener command for a platform, e.g. `xdg-open URL` on Linux, or `$BROWSER URL`. */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } {
  const chosen = env.BROWSER?.split(platform === 'win32' ? ';' : ':').find((c) => c.trim());
  if (chosen !== undefined) {
    const [command = chosen, ...rest] = chosen.trim().split(/\s+/);
    const args = rest.map((a) => a.replace('%s', url));
    return { command, args: chosen.includes('%s') ? args : [...args, url] };
  }
  switch (platform) {
    case 'darwin':
      return { command: 'open', args: [url] };
    case 'win32':
      // `start` is a cmd built-in; the empty string is the window title it would take from the URL.
      return { command: 'cmd', args: ['/c', 'start', '', url.replace(/&/g, '^&')] };
    default:
      return { command: 'xdg-open', args: [url] };
  }
}

/** Starts the opener detached and ignores every failure (no opener, no display, …). */
export function openBrowser(url: string): void {
  const { command, args } = browserCommand(url);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this machine: the address is printed anyway.
  }
}
