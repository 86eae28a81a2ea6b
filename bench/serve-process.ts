/**
 * `warden serve` for a benchmark's joining side. What it writes to stderr (its start-up notices,
 * such as where headless secrets are kept) is held back, since it is not a figure, and shown only
 * when the core does not start or exits early.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ServeOptions {
  bin: string;
  wardenHome: string;
  /** True once the core takes clients the way the bench joins it. */
  ready: () => boolean | Promise<boolean>;
  node?: string;
}

/** Starts the core and resolves once `ready`; throws with its stderr when it did not start. */
export async function startServe(options: ServeOptions): Promise<ChildProcess> {
  const { bin, wardenHome, ready, node = process.execPath } = options;
  const serve = spawn(node, [bin, 'serve', '--no-open', '--gateway-port', '0'], {
    env: { ...process.env, WARDEN_HOME: wardenHome },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  serve.stderr.setEncoding('utf8');
  serve.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  let exited = false;
  serve.once('exit', () => (exited = true));
  for (let i = 0; i < 300 && !exited && !(await ready()); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (exited || !(await ready())) {
    serve.kill('SIGTERM');
    throw new Error(`warden serve (${bin}) did not start${stderr ? `:\n${stderr.trimEnd()}` : ''}`);
  }
  // Later output (a crash) still reaches the terminal.
  serve.stderr.removeAllListeners('data');
  serve.stderr.pipe(process.stderr);
  return serve;
}
