/**
 * The sandbox init: run inside the sandbox by the app's own Node runtime as
 * `node init.cjs --port N -- COMMAND ARGS…`. It serves the HTTP/SOCKS5 proxy on 127.0.0.1:N in
 * the sandbox's empty network namespace, carries every connection over the inherited fd 3 to the
 * host, starts the server with stdio inherited, forwards signals and exits with its status.
 * It writes only to stderr: stdout belongs to the server's MCP traffic.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { constants } from 'node:os';
import { MuxSession } from './mux-session';
import { createProxyServer } from './proxy-server';

const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGWINCH'] as const;

function say(message: string): void {
  process.stderr.write(`warden-init: ${message}\n`);
}

function parseArgs(argv: string[]): { port: number; command: string; args: string[] } | string {
  const sep = argv.indexOf('--');
  if (sep < 0 || sep === argv.length - 1) return 'usage: init --port N -- COMMAND [ARGS…]';
  let port = 0;
  const own = argv.slice(0, sep);
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--port') port = Number(own[++i]);
    else return `unknown option ${own[i]}`;
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) return '--port needs a port number';
  return { port, command: argv[sep + 1]!, args: argv.slice(sep + 2) };
}

function startServer(command: string, args: string[], onExit: () => void): void {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(command, args, { stdio: 'inherit', env });
  for (const sig of FORWARDED) {
    process.on(sig, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    });
  }
  child.on('error', (e) => {
    say(`cannot start ${command}: ${e.message}`);
    onExit();
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    onExit();
    process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
  });
}

function main(): void {
  const parsed = parseArgs(process.argv.slice(2));
  if (typeof parsed === 'string') {
    say(parsed);
    process.exit(2);
  }
  process.on('uncaughtException', (e) => say(`internal error, connection dropped: ${e.message}`));
  let channel: net.Socket;
  try {
    channel = new net.Socket({ fd: 3, readable: true, writable: true });
  } catch (e) {
    say(`no egress channel on fd 3 (${(e as Error).message})`);
    process.exit(2);
  }
  const session = new MuxSession(channel, { role: 'sandbox' });
  session.on('violation', (m: string) => say(`egress channel closed: ${m}`));
  const proxy = createProxyServer(session);
  proxy.on('error', (e) => {
    say(`cannot listen on 127.0.0.1:${parsed.port}: ${e.message}`);
    process.exit(2);
  });
  proxy.listen(parsed.port, '127.0.0.1', () => {
    startServer(parsed.command, parsed.args, () => {
      proxy.close();
      session.close();
    });
  });
}

main();
