/**
 * Opens an authorization URL in the system browser from a process without Electron: `open` on
 * macOS, `xdg-open` elsewhere (Windows: `explorer`), without a shell; the URL is also printed,
 * since a headless machine or a missing opener leaves the person to open it by hand.
 */
import { spawn } from 'node:child_process';

function opener(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return 'explorer';
  return 'xdg-open';
}

/** Prints the URL with `print`, then asks the platform's opener to show it; never throws. */
export function systemBrowser(print: (line: string) => void): (url: URL) => Promise<void> {
  return (url) => {
    print(`Sign in in your browser; if none opened, open this address:\n  ${url.href}\n`);
    try {
      const child = spawn(opener(process.platform), [url.href], {
        stdio: 'ignore',
        detached: true,
      });
      child.on('error', () => undefined);
      child.unref();
    } catch {
      // The printed address is the fallback.
    }
    return Promise.resolve();
  };
}
