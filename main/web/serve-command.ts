/**
 * `warden serve [--port N] [--no-open]`: the control panel in a browser. Serves the renderer and
 * the contract on 127.0.0.1 only, at a per-run `*.localhost` name and at 127.0.0.1 as the
 * fallback (request-guard.ts), prints both and the session token on this terminal,
 * opens the browser through a one-time sign-in file unless --no-open (no credential in any
 * process's arguments), and runs until SIGINT or SIGTERM.
 */
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { InboxNotice } from '../../app/contract/inbox-notices';
import type { ConfigProblem } from '../../app/contract/servers';
import type { Autostart } from '../autostart/login-item';
import { serveAutostart } from '../autostart/serve-login';
import { type CliIo, UsageError, portFlag, reportUsage } from '../cli/cli-io';
import { resolveWardenHome } from '../config/warden-home';
import { type Core, createCore } from '../core/core';
import { listenControlChannel } from '../core/control-channel';
import { acquireCoreLock } from '../core/core-lock';
import { notifyInbox } from '../core/inbox-notifier';
import { OPEN_PANEL_OP } from '../core/open-panel';
import type { Reply } from '../../app/contract/reply';
import { err, ok } from '../../app/result';
import { DEFAULT_GATEWAY_PORT } from '../gateway/front-doors';
import { headlessSecretsWarning } from '../secrets/headless-secret-store';
import { raiseNotice } from './desktop-notice';
import { findRendererDir } from './find-renderer-dir';
import { showUntrusted } from '../../app/text/untrusted-text';
import { openBrowser } from './open-browser';
import { openGateway } from './serve-gateway';
import { fileUrl, writeSignInFile } from './sign-in-file';
import { type WebServer, startWebServer } from './web-server';
import type { WebCore } from './ws-bridge';

export const SERVE_HELP = `Usage: warden serve [--port N] [--gateway-port N] [--no-open] [--no-token]

Serves the Warden control panel on 127.0.0.1 only, at an address new at each start
(http://RANDOM.localhost:PORT; http://127.0.0.1:PORT for browsers that cannot open it), prints
it and a random session token, and opens your browser through a one-time sign-in file that only
you can read (the page keeps a session secret that only its own address can read, never a
cookie; no credential appears in any process's arguments). For a browser not opened from here,
sign in at the printed address's /login with the token. Anyone with the token can drive Warden,
so do not share it. Stop with Ctrl+C.

Options:
  --port N     listen on port N (default: a free port chosen by the system, new at each start;
               the panel's address is new at each start either way, except the 127.0.0.1
               fallback: see the README's Security)
  --gateway-port N
               the MCP gateway's port, http://127.0.0.1:N/mcp/NAME (default ${DEFAULT_GATEWAY_PORT};
               0 picks a free one). Another program on that port is an error (exit 1,
               naming it): the tokens of AI clients connected over HTTP are then revoked,
               and replaced in their configs once Warden holds its port again
  --no-open    do not open a browser ($BROWSER, else the system's opener)
  --no-token   do not print the session token (as started at login, where output goes to a
               log); "warden open" signs your browser in
  -h, --help   show this help
`;

export interface ServeDeps {
  createCore: (opts: {
    wardenHome: string;
    autostart?: Autostart;
  }) => Promise<WebCore & { close(): Promise<void> }>;
  openBrowser: (url: string) => void;
  /** Resolves when the process is asked to stop; the default waits for SIGINT or SIGTERM. */
  waitForStop: () => Promise<void>;
  /** The built renderer; found next to the CLI by default. */
  staticDir?: string;
  /** Raises a system notification for an item that waits in the Inbox (desktop-notice.ts). */
  notify: (notice: InboxNotice) => void;
  env: NodeJS.ProcessEnv;
}

interface ServeFlags {
  port: number;
  gatewayPort: number;
  open: boolean;
  token: boolean;
  help: boolean;
}

/** Parses the flags; throws UsageError with one line naming the bad flag. */
export function parseServeFlags(args: string[]): ServeFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'gateway-port': { type: 'string' },
        'no-open': { type: 'boolean' },
        'no-token': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    const first = (error as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw new UsageError(`serve: ${first} (see warden serve --help)`);
  }
  const port = portFlag('serve', '--port', values.port, 0);
  const gatewayPort = portFlag(
    'serve',
    '--gateway-port',
    values['gateway-port'],
    DEFAULT_GATEWAY_PORT,
  );
  return {
    port,
    gatewayPort,
    open: values['no-open'] !== true,
    token: values['no-token'] !== true,
    help: values.help === true,
  };
}

/** Runs `warden serve ARGS`; resolves with the exit status once the server has stopped. */
export async function runServeCommand(
  args: string[],
  io: CliIo,
  deps: Partial<ServeDeps> = {},
): Promise<number> {
  let flags: ServeFlags;
  try {
    flags = parseServeFlags(args);
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    throw error;
  }
  if (flags.help) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  const staticDir = deps.staticDir ?? (await findRendererDir());
  if (staticDir === undefined) {
    io.stderr(
      'warden: serve: the control panel is not built (out/renderer is missing); run "npm run build"\n',
    );
    return 1;
  }
  const env = deps.env ?? process.env;
  const wardenHome = resolveWardenHome(env);
  const lock = await acquireCoreLock(wardenHome, 'warden serve');
  if (!lock.ok) {
    io.stderr(`warden: serve: ${lock.error.message} (${lock.error.remedy})\n`);
    return 1;
  }
  // From here on a stop signal closes everything in order, however early it comes.
  const stopped = (deps.waitForStop ?? waitForSignal)();
  let core;
  try {
    // At login it starts the same way, for the same folder and gateway port.
    const autostart = serveAutostart(wardenHome, flags.gatewayPort, env);
    core = await (deps.createCore ?? createCore)({ wardenHome, autostart });
  } catch (error) {
    await lock.value.release();
    throw error;
  }
  // `warden open` asks here for a one-time sign-in URL, once the web server listens.
  let web: WebServer | undefined;
  const openPanel = (): Reply =>
    web
      ? ok({ kind: 'browser', port: web.port, signIn: web.signIn() })
      : err({ kind: 'invalid-input', message: 'the control panel is still starting; try again' });
  const control = await listenControlChannel({
    wardenHome,
    handle: (op, input) =>
      op === OPEN_PANEL_OP ? Promise.resolve(openPanel()) : core.handle(op, input),
  });
  try {
    await reportConfigProblems(core, io);
    const doors = isFullCore(core) ? await openGateway(core, flags.gatewayPort, io) : undefined;
    if (doors === 'port-taken') return 1;
    try {
      web = await startWebServer({
        core,
        staticDir,
        port: flags.port,
        log: (line) => io.stderr(`warden: ${line}\n`),
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why =
        code === 'EADDRINUSE'
          ? `port ${flags.port} is already in use on 127.0.0.1 or [::1] (browsers try both)`
          : String(error);
      io.stderr(`warden: serve: cannot listen on 127.0.0.1: ${why}\n`);
      await doors?.close();
      return 1;
    }
    io.stdout(
      `Warden is serving at ${web.url}\n` +
        `  Also at ${web.fallbackUrl} for scripts and for browsers that cannot open *.localhost ` +
        "names (the port's own address, not this run's: see the README's Security)\n",
    );
    if (flags.token)
      io.stdout(
        `Session token (for this terminal only; do not share it): ${web.token}\n` +
          `  A browser not opened from here signs in at ${web.url}login with it.\n`,
      );
    else io.stdout('The session token is not printed: "warden open" signs your browser in.\n');
    io.stderr(`warden: ${headlessSecretsWarning}\n`);
    // The panel may be open nowhere (as when serve started at login): what waits for the user's
    // answer is announced on stderr and, where the desktop has a way, as a notification.
    const unnotify = notifyInbox(core, (notice) => {
      io.stderr(`warden: ${showUntrusted(notice.title)}: answer it in the control panel\n`);
      (deps.notify ?? raiseNotice)(notice);
    });
    let signInFile: string | undefined;
    if (flags.open) {
      const home = resolveWardenHome(env);
      signInFile = await writeSignInFile(home, web.port, web.signIn());
      (deps.openBrowser ?? openBrowser)(fileUrl(signInFile));
    }
    await stopped;
    unnotify();
    if (signInFile !== undefined) await rm(signInFile, { force: true });
    await doors?.close();
    await web.close();
    return 0;
  } finally {
    await control.close();
    await core.close();
    await lock.value.release();
  }
}

function isFullCore(core: WebCore): core is Core {
  return 'supervisor' in core;
}

async function reportConfigProblems(core: WebCore, io: CliIo): Promise<void> {
  const reply = await core.handle('config.problems', {});
  if (!reply.ok) return;
  for (const problem of reply.value as ConfigProblem[]) {
    const where = problem.movedTo ? `; the file was moved to ${problem.movedTo}` : '';
    io.stderr(`warden: warning: ${showUntrusted(problem.message + where)}\n`);
  }
}

/**
 * Resolves on the first SIGINT or SIGTERM. The handlers stay while Warden closes: Ctrl+C reaches
 * every process of the terminal's group and `npm start` passes it on too, and a second signal
 * must not cut the closing short (the audit log's last rows, the lock of the state folder).
 */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => resolve();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
