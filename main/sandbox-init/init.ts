/**
 * The sandbox init: run inside the sandbox by the app's own Node runtime as
 * `node init.cjs --port N -- COMMAND ARGS…`, with Node's IPC channel on fd 3.
 *
 * It makes the egress proxy's listening socket on 127.0.0.1:N of the sandbox's empty network
 * namespace and hands it to Warden over fd 3, which serves it: every connection the server makes
 * to the proxy is accepted, decided and relayed by Warden in one hop, and nothing but the server
 * can reach that port. Only once Warden has taken the socket and closed the channel does the init
 * start the server (stdio inherited), so no code of the server ever runs while the channel is open.
 * Then it forwards signals and exits with the server's status. It writes only to stderr: stdout
 * belongs to the server's MCP traffic.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { constants } from 'node:os';

const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGWINCH'] as const;
/** How long Warden may take to take the socket before the init gives up. */
const HANDOVER_MS = 15_000;

function say(message: string): void {
  process.stderr.write(`warden-init: ${message}\n`);
}

function fail(message: string): never {
  say(message);
  process.exit(2);
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

function startServer(command: string, args: string[]): void {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  // The server's own NODE_OPTIONS (and the fetch preload) were kept aside so that the init
  // itself started with nothing loaded but its own code.
  delete env.NODE_OPTIONS;
  if (env.WARDEN_SERVER_NODE_OPTIONS) env.NODE_OPTIONS = env.WARDEN_SERVER_NODE_OPTIONS;
  delete env.WARDEN_SERVER_NODE_OPTIONS;
  const child = spawn(command, args, { stdio: 'inherit', env });
  for (const sig of FORWARDED) {
    process.on(sig, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    });
  }
  child.on('error', (e) => {
    say(`cannot start ${command}: ${e.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
  });
}

function main(): void {
  const parsed = parseArgs(process.argv.slice(2));
  if (typeof parsed === 'string') fail(parsed);
  const send = process.send?.bind(process);
  if (!send || !process.connected) fail('no egress channel on fd 3 (Warden passes it)');
  const listener = net.createServer();
  listener.on('error', (e) => fail(`cannot listen on 127.0.0.1:${parsed.port}: ${e.message}`));
  listener.listen(parsed.port, '127.0.0.1', () => {
    const timer = setTimeout(
      () => fail('Warden did not take the proxy socket in time'),
      HANDOVER_MS,
    );
    // Warden closes the channel once it holds the socket; only then may the server run.
    process.once('disconnect', () => {
      clearTimeout(timer);
      listener.close(() => startServer(parsed.command, parsed.args));
    });
    send({ warden: 'egress-listener', port: parsed.port }, listener, undefined, (e) => {
      if (e) fail(`cannot hand the proxy socket to Warden: ${e.message}`);
    });
  });
}

main();
