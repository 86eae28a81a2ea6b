/**
 * A remote server's upstream MCP session in the shape the supervisor drives for a local server
 * process: JSON-RPC lines in on stdin and out on stdout (so the session's line transport, message
 * limits, relay and restart logic apply unchanged), diagnostics on stderr, and an end. The
 * session ends when the upstream can no longer serve it (refused by the network policy, a
 * rejected header or token, an expired upstream session, a reply over the limit); the supervisor
 * then starts a new upstream session with the client's handshake replayed, as after a crash.
 */
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LaunchedProcess, ProcessExit } from '../supervisor/launcher';
import { describeUpstreamError } from './upstream-errors';

export interface RemoteProcessOptions {
  transport: Transport;
  /** Called once the upstream session ended, whatever the cause. */
  onEnd?: () => void;
  /** A reply over the message limit (for the audit log). */
  onTooLarge?: (max: number) => void;
  /** Takes secrets (the header values) out of a diagnostic line before it is kept. */
  redact?: (line: string) => string;
}

/** Wraps a started-on-demand transport as a process the supervisor can drive. */
export function remoteProcess(
  o: RemoteProcessOptions,
): LaunchedProcess & { fail(error: unknown): void } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const { transport } = o;
  const diagnose = (line: string) => stderr.write(`${o.redact ? o.redact(line) : line}\n`);
  let resolveExit: (exit: ProcessExit) => void = () => undefined;
  const exited = new Promise<ProcessExit>((resolve) => (resolveExit = resolve));
  let ended = false;
  const end = (exit: ProcessExit, line?: string): void => {
    if (ended) return;
    ended = true;
    if (line) diagnose(line);
    stdout.end();
    stderr.end();
    stdin.destroy();
    o.onEnd?.();
    resolveExit(exit);
  };
  const fatal = (error: unknown): void => {
    const described = describeUpstreamError(error);
    if (described.tooLarge !== undefined) o.onTooLarge?.(described.tooLarge);
    if (described.fatal) {
      end({ code: 1, signal: null, reason: 'exited' }, described.text);
      void transport.close().catch(() => undefined);
    } else if (!ended) diagnose(described.text);
  };
  // Messages wait for the upstream's answer to `initialize`: a Streamable HTTP session exists
  // only once it is answered (its id comes with the answer), and a replayed handshake is
  // followed at once by the client's next messages.
  let gate: Promise<unknown> = transport.start().catch((e: unknown) => fatal(e));
  const answers = new Map<unknown, () => void>();
  transport.onmessage = (message) => {
    if ('id' in message && !('method' in message)) answers.get(message.id)?.();
    if (!ended) stdout.write(`${JSON.stringify(message)}\n`);
  };
  /** Errors onerror saw, so that a failed send is not reported twice. */
  const reported = new WeakSet<object>();
  transport.onerror = (e) => {
    reported.add(e);
    fatal(e);
  };
  transport.onclose = () => end({ code: 0, signal: null, reason: 'exited' }, '[remote] closed');

  const take = (message: JSONRPCMessage): void => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      const answered = new Promise<void>((resolve) => answers.set(message.id, resolve));
      gate = gate.then(() => {
        void send(message).finally(() => answers.get(message.id)?.());
        return answered.then(() => answers.delete(message.id));
      });
    } else void gate.then(() => send(message));
  };
  let pending = '';
  stdin.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let at: number;
    while ((at = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      if (line.trim() === '') continue;
      try {
        take(JSON.parse(line) as JSONRPCMessage);
      } catch {
        diagnose('[remote] a message from the session was not JSON; dropped');
      }
    }
  });
  const send = async (message: JSONRPCMessage): Promise<void> => {
    if (ended) return;
    try {
      await transport.send(message);
    } catch (error) {
      if (!(error instanceof Error && reported.delete(error))) fatal(error);
      const described = describeUpstreamError(error);
      const id = 'id' in message && 'method' in message ? message.id : undefined;
      // A request the upstream refused gets the reason as its answer; a broken session ends.
      if (!described.fatal && id !== undefined && !ended) {
        const message = o.redact ? o.redact(described.text) : described.text;
        const reply = { jsonrpc: '2.0', id, error: { code: -32603, message } };
        stdout.write(`${JSON.stringify(reply)}\n`);
      }
    }
  };
  return {
    pid: undefined,
    stdin,
    stdout,
    stderr,
    exited,
    /** Ends the upstream session for `error` (a reply over the limit, seen by the fetch). */
    fail: fatal,
    stop: async () => {
      if (ended) return;
      const t = transport as Transport & { terminateSession?: () => Promise<void> };
      await t.terminateSession?.().catch(() => undefined);
      await transport.close().catch(() => undefined);
      end({ code: null, signal: null, reason: 'stopped' });
    },
  };
}
