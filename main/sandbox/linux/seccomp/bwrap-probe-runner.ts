/**
 * Runs a command inside a minimal bubblewrap sandbox, optionally with a seccomp program passed on
 * fd 3 the way the Linux backend passes it (`--seccomp 3`, bwrap reads the fd to EOF), optionally
 * as another user through setpriv. Used by the real-kernel seccomp tests and by `warden doctor`
 * style self-checks; it never weakens the sandbox flags to make a run succeed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdtemp } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Writable } from 'node:stream';

export interface ProbeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ProbeOptions {
  /** Raw `struct sock_filter[]` bytes; omitted = no seccomp (a baseline run). */
  program?: Buffer;
  /** Run bwrap as this user (via setpriv) instead of the current one. */
  user?: string;
  timeoutMs?: number;
}

export const bwrapPath = '/usr/bin/bwrap';

/** `/usr/bin/python3` if present, else `python3` from PATH. */
export function python3Path(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/**
 * A copy of `script` that every user can read, outside /tmp (the probe sandbox's /tmp is empty):
 * the checkout itself may sit in a folder only its owner can enter, as a CI clone may.
 */
export async function readableCopy(script: string): Promise<string> {
  const dir = await mkdtemp(join('/var/tmp', 'warden-kprobe-'));
  await chmod(dir, 0o755);
  const copy = join(dir, basename(script));
  await copyFile(script, copy);
  await chmod(copy, 0o644);
  return copy;
}

/** The bwrap arguments of the probe sandbox, ending with `--` and `command`. */
export function probeBwrapArgs(command: readonly string[], withSeccomp: boolean): string[] {
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...(withSeccomp ? ['--seccomp', '3'] : []),
    '--',
    ...command,
  ];
}

/** Spawns the probe sandbox and collects its output. */
export function runInBwrap(command: readonly string[], opts: ProbeOptions = {}): Promise<ProbeRun> {
  const bwrapArgs = probeBwrapArgs(command, opts.program !== undefined);
  const [file, args] =
    opts.user === undefined
      ? [bwrapPath, bwrapArgs]
      : [
          'setpriv',
          [
            `--reuid=${opts.user}`,
            `--regid=${opts.user}`,
            '--init-groups',
            bwrapPath,
            ...bwrapArgs,
          ],
        ];
  const child = spawn(file, args, {
    stdio: ['ignore', 'pipe', 'pipe', opts.program ? 'pipe' : 'ignore'],
    cwd: '/',
    timeout: opts.timeoutMs ?? 20_000,
  });
  if (opts.program) {
    const fd3 = child.stdio[3] as Writable;
    // If bwrap dies before reading, the write fails with EPIPE; its exit status says why.
    fd3.on('error', () => undefined);
    fd3.end(opts.program);
  }
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Why the probe sandbox cannot run for `user` here (bwrap missing, user namespaces blocked, …),
 * or undefined when it can.
 */
export async function probeSandboxUnavailable(user?: string): Promise<string | undefined> {
  if (!existsSync(bwrapPath)) return `${bwrapPath} is not installed`;
  if (user !== undefined && process.getuid?.() !== 0) return `switching to ${user} needs root`;
  try {
    const run = await runInBwrap(['/bin/true'], user === undefined ? {} : { user });
    if (run.code === 0) return undefined;
    return `bwrap cannot build its sandbox: ${run.stderr.trim() || `exit ${run.code}`}`;
  } catch (e) {
    return `bwrap could not be started: ${String(e)}`;
  }
}
