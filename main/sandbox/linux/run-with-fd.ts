/** Runs a short probe command with optional data on fd 3, collecting its exit code and stderr. */
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

export interface ShortRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `file args` with `fd3` (if given) written to fd 3; never throws. */
export function runWithStdinFd(
  file: string,
  args: readonly string[],
  fd3: Buffer | undefined,
  timeoutMs = 10_000,
): Promise<ShortRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn(file, args, {
      stdio: fd3 === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin' },
      timeout: timeoutMs,
    });
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    if (fd3 !== undefined) {
      const pipe = child.stdio[3] as Writable;
      pipe.on('error', () => undefined);
      pipe.end(fd3);
    }
    child.on('error', (e) => resolve({ code: null, stdout, stderr: stderr + e.message }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
