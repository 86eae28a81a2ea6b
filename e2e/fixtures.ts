/**
 * Playwright fixtures: each test gets its own temporary WARDEN_HOME and its own real
 * `warden serve` (the built CLI, `node bin/warden.js serve --no-open --port 0`), stopped after.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test as base } from '@playwright/test';

export const repoRoot = resolve(import.meta.dirname, '..');

export interface WardenServer {
  /** The full URL printed by `warden serve`, token fragment included. */
  url: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  home: string;
  /** Reads and parses `$WARDEN_HOME/config.json`. */
  readConfig(): Promise<{
    servers: Array<{ name: string; launch: { command: string; args: string[] } }>;
  }>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

// Matched only once the whole line (newline included) arrived, never on a half-read token.
const URL_LINE = /^Warden is serving at ((http:\/\/127\.0\.0\.1:\d+)\/#token=[A-Za-z0-9_-]+)\n/m;

/** Starts `warden serve` on `home` and resolves once it printed its URL. */
async function startServe(
  home: string,
): Promise<{ child: ChildProcess; url: string; origin: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'warden.js'), 'serve', '--no-open', '--port', '0'],
    {
      cwd: repoRoot,
      env: { ...process.env, WARDEN_HOME: home },
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
    url: found[1] ?? '',
    origin: found[2] ?? '',
    stderr: () => err,
  };
}

async function stopServe(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export const test = base.extend<{ warden: WardenServer }>({
  // Playwright reads fixture dependencies from an object pattern, even an empty one.
  // eslint-disable-next-line no-empty-pattern
  warden: async ({}, use) => {
    const home = await mkdtemp(join(tmpdir(), 'warden-e2e-'));
    const { child, url, origin, stderr } = await startServe(home);
    try {
      await use({
        url,
        origin,
        home,
        stderr,
        readConfig: async () =>
          JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as never,
      });
    } finally {
      await stopServe(child);
      await rm(home, { recursive: true, force: true });
    }
  },
});

export { expect } from '@playwright/test';
