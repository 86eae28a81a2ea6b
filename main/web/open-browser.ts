/** Opens a URL in the user's default browser, best effort: a failure only means no window. */
import { spawn } from 'node:child_process';

/** The opener command for a platform, e.g. `xdg-open URL` on Linux. */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } {
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
    // No opener on this machine: the URL is printed anyway.
  }
}
