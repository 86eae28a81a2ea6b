/**
 * `warden serve`'s notifications: the command per platform, given the brief title (no host,
 * folder or tool: other local users can read argv), its untrusted part escaped and cut short,
 * everything in argv (a title that looks like an option stays a title), and
 * a real `notify-send` (a stand-in on PATH that writes down its arguments) given exactly that.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingFolderGrant } from '../../app/contract/folder-grants';
import type { PendingGrant } from '../../app/contract/grants';
import { newNotices } from '../../app/contract/inbox-notices';
import type { PendingApproval } from '../../app/contract/tools';
import { noticeCommand, raiseNotice } from './desktop-notice';
import { tempDirEach } from '../../test/helpers/temp-dir';

let dir = '';
tempDirEach('warden-notice-', (d) => (dir = d));
const path = process.env.PATH;
afterEach(() => {
  process.env.PATH = path;
});

const notice = {
  title: 'net wants to reach api.example.com:443',
  brief: 'net wants to reach a new host',
  body: 'Allow or deny it in Warden.',
};

describe('noticeCommand', () => {
  it('uses notify-send on Linux, with the options ended before the text', () => {
    expect(noticeCommand(notice, 'linux')).toEqual({
      command: 'notify-send',
      args: [
        '--app-name=MCP Warden',
        '--',
        notice.brief,
        'Allow or deny it in Warden. ("warden open" shows the control panel.)',
      ],
    });
  });

  it('uses osascript on macOS with the text as arguments, never in the script', () => {
    const run = noticeCommand({ ...notice, brief: 'x" & do shell script "id' }, 'darwin')!;
    expect(run.command).toBe('osascript');
    const script = run.args.filter((_, i) => run.args[i - 1] === '-e');
    expect(script.join('\n')).not.toContain('do shell script');
    expect(run.args.slice(-2)).toEqual([
      'x" & do shell script "id',
      'Allow or deny it in Warden. ("warden open" shows the control panel.)',
    ]);
  });

  it('gives argv, which other local users can read, no host, folder or tool', () => {
    const [grant, folder, approval] = newNotices(
      {
        grants: [{ id: 'g', server: 'net', host: 'bank.example', port: 443 } as PendingGrant],
        folders: [{ id: 'f', server: 'fs', path: '/home/u/medical' } as PendingFolderGrant],
        approvals: [{ id: 'a', server: 'gh', tool: 'delete_repository' } as PendingApproval],
      },
      new Set(),
    );
    const argv = [grant!, folder!, approval!].map((n) => noticeCommand(n, 'linux')!.args[2]);
    expect(argv).toEqual([
      'net wants to reach a new host',
      'fs is offered a folder',
      'gh wants to call a tool',
    ]);
    expect(grant!.title).toBe('net wants to reach bank.example:443');
    expect(noticeCommand(folder!, 'darwin')!.args.join(' ')).not.toContain('medical');
  });

  it('has none on Windows', () => {
    expect(noticeCommand(notice, 'win32')).toBeUndefined();
  });

  it('escapes control and bidi characters in the title and cuts it short', () => {
    const hostile = `net wants to call \u001b]0;owned\u0007\u202etxt.exe${'x'.repeat(500)}`;
    const [, , title] = noticeCommand({ ...notice, brief: hostile }, 'linux')!.args;
    expect([...title!].some((c) => c.charCodeAt(0) < 0x20 || c === '\u202e')).toBe(false);
    expect(title).toContain('\\u202e');
    expect(title!.length).toBeLessThanOrEqual(200);
    expect(title!.endsWith('…')).toBe(true);
  });
});

describe.skipIf(process.platform !== 'linux')('raiseNotice (Linux)', () => {
  it('runs notify-send with exactly those arguments, and shrugs when there is none', async () => {
    const log = join(dir, 'argv');
    const fake = join(dir, 'notify-send');
    await writeFile(fake, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${log}'\n`);
    await chmod(fake, 0o755);
    process.env.PATH = `${dir}:${path}`;
    raiseNotice({ ...notice, brief: '--help me' });
    await expect.poll(() => readFile(log, 'utf8').catch(() => '')).not.toBe('');
    expect((await readFile(log, 'utf8')).split('\n').slice(0, 4)).toEqual([
      '--app-name=MCP Warden',
      '--',
      '--help me',
      'Allow or deny it in Warden. ("warden open" shows the control panel.)',
    ]);
    // No notify-send at all: nothing is raised and nothing throws.
    process.env.PATH = join(dir, 'nothing-here');
    expect(() => raiseNotice(notice)).not.toThrow();
    // Its spawn error comes a moment later, and is handled (an unhandled one fails the run).
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
});
