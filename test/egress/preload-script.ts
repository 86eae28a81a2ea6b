/**
 * Runs a script under the fetch preload, as a sandboxed server runs, and reads the one line of
 * JSON it prints: the shared half of the preload's tests on several Nodes.
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';

/** The Nodes named in WARDEN_TEST_NODES (colon-separated; .ci/run names 22, 24 and 26). */
export const otherNodes = (process.env.WARDEN_TEST_NODES ?? '').split(':').filter(Boolean);

/**
 * Runs `script` with `node --require preload` in `env` (nothing else of this process's); expects
 * it to exit 0 within 20 s and returns what it printed, parsed.
 */
export async function runUnderPreload(
  node: string,
  preload: string,
  script: string,
  env: Record<string, string | undefined>,
): Promise<unknown> {
  const child = spawn(node, ['--require', preload, script], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise((r) => child.once('close', r).once('error', (e) => r(e.message)));
  clearTimeout(killer);
  expect(code, err).toBe(0);
  return JSON.parse(out) as unknown;
}
