/**
 * The local channel between `warden connect` and a running core (the app or `warden serve`): a
 * Unix socket in `$WARDEN_HOME/run/`, a directory only its owner may enter, so only the same
 * user reaches it. The first line names the server; after the answer, the socket carries the
 * client's JSON-RPC stream.
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import { type Server as NetServer, type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { LineTransport } from './line-transport';
import { isLive, localChannelPath } from './local-channel-path';
import { openLocalDoor } from './local-door';

export { isLive, localChannelPath };

const helloSchema = z.object({ server: z.string(), client: z.string().max(200).optional() });
const MAX_HELLO = 4096;

export interface LocalChannelServer {
  path: string;
  close(): Promise<void>;
}

/** Reads the first line of a socket, bounded; resolves undefined when it never comes. */
function readHello(socket: Socket): Promise<{ line: string; rest: Buffer } | undefined> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const nl = buffer.indexOf(0x0a);
      if (nl >= 0 || buffer.length > MAX_HELLO) {
        socket.off('data', onData);
        socket.pause();
        resolve(
          nl >= 0
            ? { line: buffer.subarray(0, nl).toString('utf8'), rest: buffer.subarray(nl + 1) }
            : undefined,
        );
      }
    };
    socket.on('data', onData);
    // A peer that ends or goes before its first line (a liveness probe) gets no session.
    socket.once('end', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
  });
}

/** Starts listening; `open` runs a session for each accepted client. */
export async function listenLocalChannel(
  wardenHome: string,
  open: (server: string, client: string, transport: LineTransport) => Promise<string | undefined>,
  maxMessageBytes: number,
): Promise<LocalChannelServer> {
  const dir = join(wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = localChannelPath(wardenHome);
  if (await isLive(path))
    throw new Error(`another Warden core is already running for ${wardenHome}`);
  await rm(path, { force: true });
  // Half-open: a client that has sent all it will send (its end) still reads the answers.
  const sockets = new Set<Socket>();
  /**
   * Opens the session a client asked for on `input` and `output` (one socket, or the door's two
   * pipes), answering on `output` first; false when the core refused it.
   */
  const startSession = async (
    server: string,
    client: string,
    input: Socket,
    output: Socket,
    answer: (ok: boolean, refusal?: string) => string = (ok, refusal) =>
      `${JSON.stringify(ok ? { ok } : { ok, error: refusal })}\n`,
  ): Promise<boolean> => {
    const transport = new LineTransport(input, output, maxMessageBytes);
    // The end of the session ends the output, so that `warden connect` ends too.
    transport.endsOutput = true;
    const refusal = await open(server, client, transport);
    if (refusal) {
      output.end(answer(false, refusal));
      if (input !== output) input.destroy();
      return false;
    }
    output.write(answer(true));
    return true;
  };
  const server: NetServer = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A peer that resets or vanishes costs its own session, never the core.
    socket.on('error', () => undefined);
    void (async () => {
      const hello = await readHello(socket);
      const parsed = hello ? helloSchema.safeParse(safeJson(hello.line)) : undefined;
      if (!hello || !parsed?.success) {
        socket.end(`${JSON.stringify({ ok: false, error: 'bad hello' })}\n`);
        return;
      }
      const started = await startSession(
        parsed.data.server,
        parsed.data.client ?? 'stdio',
        socket,
        socket,
      );
      if (started && hello.rest.length > 0) socket.unshift(hello.rest);
      if (started) socket.resume();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  const door = await openLocalDoor(dir, ({ server, client, input, output }) => {
    for (const socket of [input, output]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    // The session's end closes the answers; the client's side goes with it.
    output.once('close', () => input.destroy());
    startSession(server, client, input, output, (ok) => (ok ? 'ok\n' : 'no\n')).then(
      (started) => started && input.resume(),
      () => output.destroy(),
    );
  });
  return {
    path,
    close: async () => {
      door?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A connection left half-open would hold the close forever: each is ended, and destroyed
      // if its peer has not let go within a second.
      for (const socket of sockets) socket.end();
      const timer = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, 1000);
      await closed;
      clearTimeout(timer);
      await rm(path, { force: true });
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
