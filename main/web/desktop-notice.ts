/**
 * System notifications from `warden serve`, best effort: `notify-send` (libnotify) on Linux,
 * `osascript` on macOS; where neither runs, nothing (the line on stderr remains). The text goes
 * in argv, never through a shell or into a script's source. Other local users can read argv, so
 * it holds the notice's brief title (the server and what it asks, no host, folder or tool); its
 * untrusted part (a server's name) is shown escaped and cut to a notification's length.
 */
import { spawn } from 'node:child_process';
import type { InboxNotice } from '../../app/contract/inbox-notices';
import { showUntrusted } from '../../app/text/untrusted-text';

/** Longest title a notification gets; the rest is in the Inbox. */
const TITLE_MAX = 200;

/** The command that raises `notice` on `platform`; undefined where Warden knows none. */
export function noticeCommand(
  notice: Pick<InboxNotice, 'brief' | 'body'>,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } | undefined {
  const shown = showUntrusted(notice.brief);
  const title = shown.length > TITLE_MAX ? `${shown.slice(0, TITLE_MAX - 1)}…` : shown;
  const body = `${notice.body} ("warden open" shows the control panel.)`;
  switch (platform) {
    case 'linux':
    case 'freebsd':
    case 'openbsd':
      // The summary is plain text; only the body may be read as markup, and it is Warden's own.
      return { command: 'notify-send', args: ['--app-name=MCP Warden', '--', title, body] };
    case 'darwin':
      return {
        command: 'osascript',
        args: [
          '-e',
          'on run argv',
          '-e',
          'display notification (item 2 of argv) with title "MCP Warden" subtitle (item 1 of argv)',
          '-e',
          'end run',
          title,
          body,
        ],
      };
    default:
      return undefined;
  }
}

/** Raises `notice`; a missing command, no display or a failure only means no notification. */
export function raiseNotice(notice: Pick<InboxNotice, 'brief' | 'body'>): void {
  const run = noticeCommand(notice);
  if (!run) return;
  try {
    const child = spawn(run.command, run.args, { stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Nothing to raise it with here.
  }
}
