/**
 * The contract over a Unix socket, `$WARDEN_HOME/run/control.sock`, for the CLI's commands that
 * act on a running core (`warden servers start|stop|restart|status`, and every `servers`
 * change while a core runs, so that one process writes the config and the audit chain). It lives
 * beside the local channel of `warden connect`, in the directory only its owner may enter. One
 * request line `{op, input}`, one reply line, then the socket closes.
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import { type Server, connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Reply } from '../../app/contract/reply';
import { untrustedChannel } from '../gateway/local-channel-path';
import { controlChannelPath } from './control-channel-path';

const MAX_REQUEST = 1024 * 1024;

export { controlChannelPath };

/** Something that runs contract operations: a core in this process or one reached over the socket. */
export interface ContractCaller {
  readonly wardenHome: string;
  handle(op: string, input: unknown): Promise<Reply>;
}

export interface ControlChannel {
  close(): Promise<void>;
}

function refused(message: string): Reply {
  return { ok: false, error: { kind: 'invalid-input', message } };
}

/** Serves `core.handle` on the control socket. Call only while holding the core lock. */
export async function listenControlChannel(core: {
  wardenHome: string;
  handle(op: string, input: unknown): Promise<unknown>;
}): Promise<ControlChannel> {
  const dir = join(core.wardenHome, 'run');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const path = controlChannelPath(core.wardenHome);
  await rm(path, { force: true });
  const server: Server = createServer((socket) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const nl = buffer.indexOf(0x0a);
      if (nl < 0 && buffer.length <= MAX_REQUEST) return;
      socket.off('data', onData);
      if (nl < 0) {
        socket.end(`${JSON.stringify(refused('request too large'))}\n`);
        return;
      }
      let request: { op?: unknown; input?: unknown } | undefined;
      try {
        request = JSON.parse(buffer.subarray(0, nl).toString('utf8')) as typeof request;
      } catch {
        request = undefined;
      }
      if (!request || typeof request !== 'object' || typeof request.op !== 'string') {
        socket.end(`${JSON.stringify(refused('bad request'))}\n`);
        return;
      }
      core.handle(request.op, request.input).then(
        (reply) => socket.end(`${JSON.stringify(reply)}\n`),
        (error: unknown) =>
          socket.end(
            `${JSON.stringify({ ok: false, error: { kind: 'internal', message: String(error) } })}\n`,
          ),
      );
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return {
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(path, { force: true });
    },
  };
}

/** How long a command waits for the running core to answer its first call. */
export const PROBE_TIMEOUT_MS = 5000;

/** A core that took a connection and did not answer within the time given. */
export class NoAnswer extends Error {}

/**
 * Sends one operation to the core behind `path`; rejects when no core answers there, and with
 * NoAnswer when one took the connection but did not answer within `timeoutMs` (when given).
 */
export function callControlChannel(
  path: string,
  op: string,
  input: unknown,
  timeoutMs?: number,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new NoAnswer(`no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      socket.once('close', () => clearTimeout(timer));
    }
    const chunks: Buffer[] = [];
    socket.once('connect', () => socket.write(`${JSON.stringify({ op, input })}\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Reply);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/**
 * One operation sent to the running core of `wardenHome`, without a probe first: its reply, or
 * undefined when there is no core to trust and ask (a socket this user cannot trust, or none
 * answering). A caller that gets undefined takes the way that reports either (`runningCore`).
 */
export async function askRunningCore(
  wardenHome: string,
  op: string,
  input: unknown,
): Promise<Reply | undefined> {
  const path = controlChannelPath(wardenHome);
  if (untrustedChannel(path)) return undefined;
  try {
    const reply = await callControlChannel(path, op, input, PROBE_TIMEOUT_MS);
    return 'ok' in reply ? reply : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A caller for the running core of `wardenHome`, or undefined when none answers. Throws when a
 * socket is there that this user cannot trust, and when a core took the connection but did not
 * answer within `probeTimeoutMs` (a command must not hang on a stuck one, nor run beside it).
 */
export async function runningCore(
  wardenHome: string,
  probeTimeoutMs = PROBE_TIMEOUT_MS,
): Promise<ContractCaller | undefined> {
  const path = controlChannelPath(wardenHome);
  const untrusted = untrustedChannel(path);
  if (untrusted)
    throw new Error(
      `refusing to talk to the Warden control channel: ${untrusted}; remove ${dirname(path)} if no Warden of yours runs`,
    );
  try {
    const probe = await callControlChannel(path, 'config.problems', {}, probeTimeoutMs);
    if (!('ok' in probe)) return undefined;
  } catch (error) {
    if (error instanceof NoAnswer)
      throw new Error(
        `the running Warden (the app or warden serve) took the connection to ${path} but gave ${error.message}; it may be busy or stuck: try again, or restart it`,
      );
    return undefined;
  }
  return { wardenHome, handle: (op, input) => callControlChannel(path, op, input) };
}
