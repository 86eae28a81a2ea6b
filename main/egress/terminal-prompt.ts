/**
 * `ask` mode for `warden exec` without a UI: each pending grant is asked on the controlling
 * terminal (`/dev/tty`, because stdin and stdout may carry the server's MCP traffic), one at a
 * time. Without a terminal nothing is asked: the grant is refused at its timeout and the reason
 * is printed on stderr.
 */
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import tty from 'node:tty';
import type { GrantDecision, PendingGrant } from '../../app/contract/grants';
import { showUntrusted } from '../../app/text/untrusted-text';
import type { GrantInbox } from './grant-inbox';

export interface PromptIo {
  input: Readable;
  output: Writable;
  close(): void;
}

/** The controlling terminal, or undefined when the process has none (daemon, CI, setsid). */
export async function openControllingTerminal(path = '/dev/tty'): Promise<PromptIo | undefined> {
  try {
    const handle = await open(path, 'r+');
    if (!tty.isatty(handle.fd)) {
      await handle.close();
      return undefined;
    }
    const input = new tty.ReadStream(handle.fd);
    const output = new tty.WriteStream(handle.fd);
    return {
      input,
      output,
      close: () => {
        input.destroy();
        void handle.close().catch(() => undefined);
      },
    };
  } catch {
    return undefined;
  }
}

const answers: Record<string, GrantDecision> = {
  o: 'allow-once',
  once: 'allow-once',
  s: 'allow-session',
  session: 'allow-session',
  a: 'allow-always',
  always: 'allow-always',
  d: 'deny',
  deny: 'deny',
  n: 'deny-always',
  never: 'deny-always',
};

function seconds(g: PendingGrant): number {
  return Math.max(0, Math.round((Date.parse(g.expiresAt) - Date.now()) / 1000));
}

/**
 * Asks about every pending grant of `inbox` on `io`, or, without `io`, explains refusals on
 * `stderr`. Returns a function that stops listening.
 */
export function attachTerminalPrompt(
  inbox: GrantInbox,
  io: PromptIo | undefined,
  stderr: { write(text: string): unknown },
): () => void {
  const offDecided = inbox.onDecided((e) => {
    if (e.outcome !== 'timeout') return;
    const how = io ? 'nobody answered' : 'ask mode has no terminal or UI here';
    stderr.write(
      `warden: refused ${showUntrusted(e.grant.host)}:${e.grant.port} for ${showUntrusted(e.grant.server)}: no decision in time (${how}); ` +
        `allow it with --allow ${showUntrusted(e.grant.host)}:${e.grant.port}\n`,
    );
  });
  if (!io) {
    const offPending = inbox.onPending((g) =>
      stderr.write(
        `warden: ${showUntrusted(g.server)} wants ${showUntrusted(g.host)}:${g.port}; no terminal to ask on, refusing in ${seconds(g)} s\n`,
      ),
    );
    return () => (offDecided(), offPending());
  }
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  const queue: PendingGrant[] = [];
  let asking: PendingGrant | undefined;
  let answering = false;
  const next = (): void => {
    asking = undefined;
    while (queue.length > 0) {
      const g = queue.shift()!;
      if (!inbox.pending().some((p) => p.id === g.id)) continue;
      asking = g;
      io.output.write(
        `\nwarden: ${showUntrusted(g.server)} wants to connect to ${showUntrusted(g.host)}:${g.port}\n` +
          `  allow [o]nce, for this [s]ession, [a]lways; [d]eny, [n]ever (refused in ${seconds(g)} s)? `,
      );
      return;
    }
  };
  rl.on('line', (line) => {
    const g = asking;
    if (!g) return;
    const decision = answers[line.trim().toLowerCase()];
    if (!decision) {
      io.output.write('  please answer o, s, a, d or n: ');
      return;
    }
    answering = true;
    void inbox.decide(g.id, decision).then((r) => {
      answering = false;
      if (!r.ok) io.output.write(`  ${r.error.message}\n`);
      next();
    });
  });
  const offPending = inbox.onPending((g) => {
    queue.push(g);
    if (!asking) next();
  });
  const offExpired = inbox.onDecided((e) => {
    if (asking?.id !== e.grant.id || answering) return;
    const why = { timeout: 'timed out: refused', cancelled: 'the server stopped' } as Record<
      string,
      string
    >;
    io.output.write(`\n  (${why[e.outcome] ?? `decided elsewhere: ${e.outcome}`})\n`);
    next();
  });
  return () => {
    offDecided();
    offPending();
    offExpired();
    rl.close();
    io.close();
  };
}
