/** Runs bin/warden.js as a child process, the way a person or an AI client's config would. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'warden.js');

/** What a run of the CLI printed and how it exited. */
export interface WardenRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `warden ARGS` with exactly `env`, writes `input` to its stdin and waits for it to end. */
export function runWarden(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<WardenRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
