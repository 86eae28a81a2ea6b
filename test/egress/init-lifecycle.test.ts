/**
 * The sandbox init as a process: the server gets stdin/stdout/stderr (the MCP stdio transport),
 * signals reach the server, and the init exits with the server's status.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bundleEgress, freePort } from './egress-harness';

async function runInit(
  command: string[],
  opts: { stdin?: string; signalAfterMs?: number; fd3?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { runtime } = await bundleEgress();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [runtime.initScript, '--port', String(port), '--', ...command],
    {
      stdio: ['pipe', 'pipe', 'pipe', opts.fd3 === false ? 'ignore' : 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  if (opts.signalAfterMs !== undefined) setTimeout(() => child.kill('SIGTERM'), opts.signalAfterMs);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return { code, stdout, stderr };
}

describe('sandbox init process', () => {
  it('passes stdin and stdout through to the server untouched', async () => {
    const r = await runInit(['cat'], { stdin: '{"jsonrpc":"2.0","id":1}\n' });
    expect(r).toEqual({ code: 0, stdout: '{"jsonrpc":"2.0","id":1}\n', stderr: '' });
  });

  it("exits with the server's status, and 128+N when the server dies of signal N", async () => {
    expect((await runInit(['sh', '-c', 'echo err >&2; exit 7'])).code).toBe(7);
    expect((await runInit(['sh', '-c', 'echo err >&2; exit 7'])).stderr).toBe('err\n');
    expect((await runInit(['sh', '-c', 'kill -KILL $$'])).code).toBe(128 + 9);
  });

  it('forwards SIGTERM to the server and waits for it', async () => {
    const r = await runInit(
      ['sh', '-c', 'trap "echo got-term; exit 42" TERM; echo ready; while :; do sleep 0.05; done'],
      {
        signalAfterMs: 500,
      },
    );
    expect(r.stdout).toBe('ready\ngot-term\n');
    expect(r.code).toBe(42);
  });

  it('says what is wrong when it cannot start', async () => {
    const missing = await runInit(['/nonexistent/server']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toMatch(
      /warden-init: cannot start \/nonexistent\/server: spawn \/nonexistent\/server ENOENT/,
    );
    const noChannel = await runInit(['true'], { fd3: false });
    expect(noChannel.code).toBe(2);
    expect(noChannel.stderr).toMatch(/warden-init: no egress channel on fd 3/);
  });
});
