/**
 * The sandbox init as a process: it hands its listening socket over fd 3 and starts the server
 * only once the channel is closed; the server gets stdin/stdout/stderr (the MCP stdio transport),
 * signals reach the server, and the init exits with the server's status.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type net from 'node:net';
import { bundleEgress, exitedAndDrained, freePort } from './egress-harness';

async function runInit(
  command: string[],
  opts: {
    stdin?: string;
    signalAfterMs?: number;
    fd3?: boolean;
    /** Close the channel this long after the hand-over instead of at once. */
    releaseAfterMs?: number;
    env?: Record<string, string>;
  } = {},
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
  handedOver: boolean;
  outputAtRelease: string;
}> {
  const { runtime } = await bundleEgress();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [runtime.initScript, '--port', String(port), '--', ...command],
    {
      stdio: ['pipe', 'pipe', 'pipe', opts.fd3 === false ? 'ignore' : 'ipc'],
      env: { ...process.env, ...opts.env },
    },
  );
  // Warden's part: take the socket, close the channel (unless the test withholds that).
  let handedOver = false;
  child.once('message', (message: unknown, handle: net.Server) => {
    handedOver = (message as { warden?: string }).warden === 'egress-listener';
    handle.close();
    setTimeout(() => {
      outputAtRelease = stdout;
      child.disconnect();
    }, opts.releaseAfterMs ?? 0);
  });
  let outputAtRelease = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  if (opts.signalAfterMs !== undefined) setTimeout(() => child.kill('SIGTERM'), opts.signalAfterMs);
  const code = await exitedAndDrained(child);
  return { code, stdout, stderr, handedOver, outputAtRelease };
}

describe('sandbox init process', () => {
  it('passes stdin and stdout through to the server untouched', async () => {
    const r = await runInit(['cat'], { stdin: '{"jsonrpc":"2.0","id":1}\n' });
    expect(r).toEqual({
      code: 0,
      stdout: '{"jsonrpc":"2.0","id":1}\n',
      stderr: '',
      handedOver: true,
      outputAtRelease: '',
    });
  });

  it('starts the server only once Warden has closed the channel, with its NODE_OPTIONS back', async () => {
    const r = await runInit(
      [
        'node',
        '-e',
        'console.log(process.env.NODE_OPTIONS, process.env.WARDEN_SERVER_NODE_OPTIONS)',
      ],
      { releaseAfterMs: 700, env: { WARDEN_SERVER_NODE_OPTIONS: '--max-old-space-size=99' } },
    );
    expect(r.outputAtRelease).toBe('');
    expect(r.stdout).toBe('--max-old-space-size=99 undefined\n');
    expect(r.code).toBe(0);
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
