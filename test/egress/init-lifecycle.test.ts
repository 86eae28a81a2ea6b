/**
 * The sandbox init as a process, both of it: the compiled `warden-init` (what Linux launches run)
 * and the Node script `init.cjs` (where the build had no C compiler, and on macOS). Each hands its
 * listening socket over fd 3 and starts the server only once the channel is closed; the server
 * gets stdin/stdout/stderr (the MCP stdio transport), its own NODE_OPTIONS back, signals, and the
 * exit status is the server's. The compiled init becomes the server (exec): the server's PID is
 * the one Warden started, and it holds no descriptor but its stdio.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type net from 'node:net';
import { bundleEgress, exitedAndDrained, freePort, noInitProgram } from './egress-harness';

type Init = 'program' | 'script';

async function runInit(
  init: Init,
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
  signal: NodeJS.Signals | null;
  pid: number | undefined;
  stdout: string;
  stderr: string;
  handedOver: boolean;
  outputAtRelease: string;
}> {
  const { runtime } = await bundleEgress();
  const port = await freePort();
  const initArgv =
    init === 'program' ? [runtime.initProgram!] : [process.execPath, runtime.initScript];
  const child = spawn(
    initArgv[0]!,
    [...initArgv.slice(1), '--port', String(port), '--', ...command],
    {
      stdio: ['pipe', 'pipe', 'pipe', opts.fd3 === false ? 'ignore' : 'ipc'],
      env: { ...process.env, ...opts.env },
    },
  );
  // Warden's part: take the socket, close the channel (unless the test withholds that).
  let handedOver = false;
  child.once('message', (message: unknown, handle: net.Server) => {
    handedOver =
      (message as { warden?: string }).warden === 'egress-listener' &&
      (handle.address() as net.AddressInfo | null)?.port === port;
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
  return {
    code,
    signal: child.signalCode,
    pid: child.pid,
    stdout,
    stderr,
    handedOver,
    outputAtRelease,
  };
}

const inits: [Init, string | undefined][] = [
  ['program', noInitProgram],
  ['script', undefined],
];

describe.each(inits)('sandbox init process (%s)', (init, skipReason) => {
  describe.skipIf(skipReason !== undefined)(skipReason ?? 'built', () => {
    it('passes stdin and stdout through to the server untouched', async () => {
      const r = await runInit(init, ['cat'], { stdin: '{"jsonrpc":"2.0","id":1}\n' });
      expect(r).toMatchObject({
        code: 0,
        stdout: '{"jsonrpc":"2.0","id":1}\n',
        stderr: '',
        handedOver: true,
        outputAtRelease: '',
      });
    });

    it('starts the server only once Warden has closed the channel, with its NODE_OPTIONS back', async () => {
      const r = await runInit(
        init,
        [
          'node',
          '-e',
          'console.log(process.env.NODE_OPTIONS, process.env.WARDEN_SERVER_NODE_OPTIONS, process.env.NODE_CHANNEL_FD)',
        ],
        {
          releaseAfterMs: 700,
          env: {
            WARDEN_SERVER_NODE_OPTIONS: '--max-old-space-size=99',
            NODE_OPTIONS: '--no-warnings',
          },
        },
      );
      expect(r.outputAtRelease).toBe('');
      expect(r.stdout).toBe('--max-old-space-size=99 undefined undefined\n');
      expect(r.code).toBe(0);
    });

    it("exits with the server's status", async () => {
      expect((await runInit(init, ['sh', '-c', 'echo err >&2; exit 7'])).code).toBe(7);
      expect((await runInit(init, ['sh', '-c', 'echo err >&2; exit 7'])).stderr).toBe('err\n');
      const killed = await runInit(init, ['sh', '-c', 'kill -KILL $$']);
      // The script reports the server's signal as 128+N; the compiled init is the server.
      if (init === 'script') expect(killed.code).toBe(128 + 9);
      else expect(killed.signal).toBe('SIGKILL');
    });

    it('lets SIGTERM reach the server and waits for it', async () => {
      const r = await runInit(
        init,
        [
          'sh',
          '-c',
          'trap "echo got-term; exit 42" TERM; echo ready; while :; do sleep 0.05; done',
        ],
        { signalAfterMs: 500 },
      );
      expect(r.stdout).toBe('ready\ngot-term\n');
      expect(r.code).toBe(42);
    });

    it('says what is wrong when it cannot start', async () => {
      const missing = await runInit(init, ['/nonexistent/server']);
      expect(missing.code).toBe(127);
      expect(missing.stderr).toMatch(
        init === 'script'
          ? /warden-init: cannot start \/nonexistent\/server: spawn \/nonexistent\/server ENOENT/
          : /^warden-init: cannot start \/nonexistent\/server: No such file or directory\n$/,
      );
      const noChannel = await runInit(init, ['true'], { fd3: false });
      expect(noChannel.code).toBe(2);
      expect(noChannel.stderr).toMatch(/warden-init: no egress channel on fd 3/);
      expect(noChannel.handedOver).toBe(false);
    });
  });
});

describe.skipIf(noInitProgram !== undefined)('the compiled init', () => {
  it('becomes the server: same PID, nothing open but its stdio, no channel left', async () => {
    // The shell's own descriptors, read by a program it becomes (no pipeline, whose pipe the
    // shell would hold for a moment): `ls` opens the listing itself, as the lowest free one, 3.
    const r = await runInit('program', [
      'sh',
      '-c',
      'echo $$; echo "${NODE_CHANNEL_FD-none}"; exec ls /proc/self/fd',
    ]);
    const [pid, channel, ...fds] = r.stdout.trim().split('\n');
    expect(Number(pid)).toBe(r.pid);
    expect(channel).toBe('none');
    expect(fds.map(Number)).toEqual([0, 1, 2, 3]);
  });

  it('refuses a bad command line before it opens anything', async () => {
    for (const [args, message] of [
      [['--port', '0', '--', 'true'], /--port needs a port number/],
      [['--port', '80x', '--', 'true'], /--port needs a port number/],
      [['--bogus', '--', 'true'], /unknown option --bogus/],
      [['--port', '9'], /usage: warden-init --port N -- COMMAND/],
    ] as const) {
      const { runtime } = await bundleEgress();
      const child = spawn(runtime.initProgram!, [...args], {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      let stderr = '';
      let handle = false;
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('message', () => (handle = true));
      const code = await exitedAndDrained(child);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(handle).toBe(false);
    }
  });
});
