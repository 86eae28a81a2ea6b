/**
 * Playwright fixtures: each test gets its own temporary WARDEN_HOME and its own real
 * `warden serve` (the built CLI, `node bin/warden.js serve --no-open --port 0 --gateway-port 0`),
 * stopped after. Servers can be seeded with `warden servers add` before it starts, and MCP
 * clients join it through `warden connect NAME` exactly as an AI client's config would.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Page, test as base } from '@playwright/test';
import type { Policy } from '../app/policy/policy-schema';
import { bundleForNode } from '../test/helpers/bundle';

export const repoRoot = resolve(import.meta.dirname, '..');

export interface WardenServer {
  /** The per-run address `warden serve` printed, with its session token in the fragment. */
  url: string;
  /** The per-run origin `warden serve` printed, `http://<32 hex>.localhost:PORT` */
  origin: string;
  /** The fallback origin, `http://127.0.0.1:PORT` */
  fallbackOrigin: string;
  home: string;
  /** Reads and parses `$WARDEN_HOME/config.json`. */
  readConfig(): Promise<{
    servers: Array<{ name: string; launch: { command: string; args: string[] } }>;
  }>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** An MCP client connected to server `name` through `warden connect` (closed after the test). */
  connect(name: string): Promise<Client>;
}

// Matched only once the token line (newline included) arrived, never on a half-read token.
const URL_LINE =
  /^Warden is serving at (http:\/\/[0-9a-f]{32}\.localhost:(\d+))\/\n(?: {2}.*\n)*Session token [^:]*: ([A-Za-z0-9_-]+)\n/m;

/** Starts `warden serve` on `home` (with `env` added) and resolves once it printed its URL. */
export async function startServe(
  home: string,
  env: Record<string, string> = {},
): Promise<{
  child: ChildProcess;
  url: string;
  origin: string;
  fallbackOrigin: string;
  stderr: () => string;
}> {
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin', 'warden.js'),
      'serve',
      '--no-open',
      '--port',
      '0',
      '--gateway-port',
      '0',
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, WARDEN_HOME: home, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const found = await new Promise<RegExpExecArray>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`warden serve printed no URL in 20 s.\nstdout: ${out}\nstderr: ${err}`)),
      20_000,
    );
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = URL_LINE.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(
        new Error(
          `warden serve exited with ${code} before printing its URL.\nstdout: ${out}\nstderr: ${err}`,
        ),
      );
    });
  });
  return {
    child,
    // The page takes a script's token from its fragment, which never leaves the browser.
    url: `${found[1] ?? ''}/#token=${found[3] ?? ''}`,
    origin: found[1] ?? '',
    fallbackOrigin: `http://127.0.0.1:${found[2] ?? ''}`,
    stderr: () => err,
  };
}

/** Stops `warden serve` (SIGTERM, then SIGKILL after 5 s). */
export async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

const run = promisify(execFile);

/** Runs the built CLI on `home`; rejects with its output when it fails. */
/** This process's environment, without unset entries. */
export function processEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * A real MCP client speaking to server `name` through `warden connect`, as an AI client would:
 * through `bin/warden`, the shell front clients' configs start (it joins the running core).
 */
export async function connectThroughWarden(
  name: string,
  env: Record<string, string>,
): Promise<Client> {
  const client = new Client({ name: 'e2e-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: join(repoRoot, 'bin', 'warden'),
      args: ['connect', name],
      env: { ...env, WARDEN_NODE: process.execPath },
      stderr: 'pipe',
    }),
  );
  return client;
}

/**
 * What a flow reads and joins of a Warden on `home`: its config.json, and MCP clients through
 * `warden connect` with `env` (each added to `clients`, for the caller to close).
 */
export function homeAccess(
  home: string,
  env: Record<string, string>,
  clients: Client[],
): Pick<WardenServer, 'readConfig' | 'connect'> {
  return {
    readConfig: async () => JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as never,
    connect: async (name) => {
      const client = await connectThroughWarden(name, env);
      clients.push(client);
      return client;
    },
  };
}

/**
 * `warden servers add` arguments of a server that runs the net tool `bundle` with this Node, its
 * folder read-only: NAME [policy flags] --ro FOLDER -- node BUNDLE.
 */
export function netToolSeed(bundle: string, name: string, ...flags: string[]): string[] {
  return [name, ...flags, '--ro', dirname(bundle), '--', process.execPath, bundle];
}

export async function wardenCli(home: string, args: string[]): Promise<string> {
  const r = await run(process.execPath, [join(repoRoot, 'bin', 'warden.js'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, WARDEN_HOME: home },
  });
  return r.stdout;
}

/**
 * Adds a server as the UI or an import would: not yet confirmed, so the test shows its command
 * and confirms it the way a person does. `warden servers add` confirms (its user typed the
 * command), so the seed takes that confirmation back in config.json before the core starts.
 * `args` are `warden servers add` arguments: NAME [policy flags] -- COMMAND ARGS…
 */
/** What a test may change of a seeded server in config.json. */
export interface SeededServer {
  name: string;
  acknowledged: boolean;
  policy: Policy;
}

export async function seedUnconfirmedServer(home: string, args: string[]): Promise<void> {
  await wardenCli(home, ['servers', 'add', ...args]);
  const path = join(home, 'config.json');
  const config = JSON.parse(await readFile(path, 'utf8')) as {
    servers: { acknowledged: boolean }[];
  };
  for (const server of config.servers) server.acknowledged = false;
  await writeFile(path, JSON.stringify(config, null, 2));
}

export const test = base.extend<
  {
    warden: WardenServer;
    /** The page, opened on the control panel of `warden`. */
    panel: Page;
    /** `warden servers add` argument lists, seeded unconfirmed before `warden serve` starts. */
    seedServers: string[][];
    /** A change to the seeded config.json, as a person editing it by hand would make. */
    editSeededConfig: ((config: { servers: SeededServer[] }) => void) | undefined;
  },
  { netToolBundle: string }
>({
  netToolBundle: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use(await bundleForNode(join(repoRoot, 'e2e', 'fixtures', 'net-tool-server.ts')));
    },
    { scope: 'worker' },
  ],
  seedServers: [[], { option: true }],
  editSeededConfig: [undefined, { option: true }],
  panel: async ({ page, warden }, use) => {
    await page.goto(warden.url);
    await use(page);
  },
  warden: async ({ seedServers, editSeededConfig }, use) => {
    const home = await mkdtemp(join(tmpdir(), 'warden-e2e-'));
    for (const args of seedServers) await seedUnconfirmedServer(home, args);
    if (editSeededConfig) {
      const path = join(home, 'config.json');
      const config = JSON.parse(await readFile(path, 'utf8')) as { servers: SeededServer[] };
      editSeededConfig(config);
      await writeFile(path, JSON.stringify(config, null, 2));
    }
    const { child, url, origin, fallbackOrigin, stderr } = await startServe(home);
    const clients: Client[] = [];
    try {
      await use({
        url,
        origin,
        fallbackOrigin,
        home,
        stderr,
        ...homeAccess(home, { ...processEnv(), WARDEN_HOME: home }, clients),
      });
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await stopServe(child);
      await rm(home, { recursive: true, force: true });
    }
  },
});

export { expect } from '@playwright/test';
