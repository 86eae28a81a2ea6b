/**
 * A command that finds a core's control socket: it talks to a core that answers, takes a socket
 * nobody listens on as no core, and does not hang on (or run beside) a core that took the
 * connection and never answered.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askRunningCore, controlChannelPath, runningCore } from './control-channel';

let home: string;
let server: Server | undefined;
const held: Socket[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'warden-control-'));
  await mkdir(dirname(controlChannelPath(home)), { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await rm(home, { recursive: true, force: true });
});

/** Listens on the control socket, answering each request line with `answer` (none: silent). */
async function listen(answer?: string): Promise<void> {
  server = createServer((socket) => {
    held.push(socket);
    socket.on('data', () => {
      if (answer !== undefined) socket.end(`${answer}\n`);
    });
  });
  await new Promise<void>((resolve) => server!.listen(controlChannelPath(home), resolve));
}

describe('the running core, as a command finds it', () => {
  it('is a caller when the core answers', async () => {
    await listen(JSON.stringify({ ok: true, value: [] }));
    expect(await runningCore(home, 2000)).toMatchObject({ wardenHome: home });
  });

  it('is none when nothing is there', async () => {
    expect(await runningCore(home, 2000)).toBeUndefined();
  });

  it('is refused, saying so, when a core took the connection and does not answer', async () => {
    await listen();
    const started = Date.now();
    await expect(runningCore(home, 300)).rejects.toThrow(
      /took the connection to .*control\.sock but gave no answer within 0\.3 s; it may be busy or stuck/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('asking it once without a probe gives up too', async () => {
    await listen();
    expect(await askRunningCore(home, 'servers.list', {})).toBeUndefined();
  }, 15_000);
});
