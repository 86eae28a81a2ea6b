/**
 * `npm start` (scripts/start.mjs after the build): opens Electron where its binary exists and
 * runs here, and otherwise serves the same control panel in the browser, saying why in one line.
 * Needs the build (`npm test` builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDirEach } from '../helpers/temp-dir';

const repo = join(import.meta.dirname, '../..');
let dir = '';
let child: ChildProcess | undefined;

tempDirEach('warden-start-', (d) => (dir = d));
afterEach(async () => {
  child?.kill('SIGTERM');
  if (child && child.exitCode === null)
    await new Promise((resolve) => child!.once('exit', resolve));
  child = undefined;
});

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WARDEN_HOME: join(dir, 'home'), ...extra };
  for (const name of ['DISPLAY', 'WAYLAND_DISPLAY', 'WARDEN_ELECTRON'])
    if (!(name in extra)) delete env[name];
  return env;
}

/** Runs start.mjs until it prints the control panel URL; resolves with its stderr and the URL. */
function startUntilServing(env: NodeJS.ProcessEnv): Promise<{ stderr: string; url: string }> {
  return new Promise((resolve, reject) => {
    const started = spawn(
      process.execPath,
      [join(repo, 'scripts/start.mjs'), '--no-open', '--port', '0', '--gateway-port', '0'],
      { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    let stdout = '';
    let stderr = '';
    started.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    started.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The fallback address: Node's fetch does not resolve the per-run `*.localhost` name.
      const url = /\n {2}Also at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(stdout)?.[1];
      if (url) resolve({ stderr, url });
    });
    started.once('exit', (code) => reject(new Error(`start.mjs exited ${code}: ${stderr}`)));
  });
}

/** A stand-in for the Electron binary: a shell script doing what `body` says. */
async function fakeElectron(body: string): Promise<string> {
  const path = join(dir, 'electron');
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('npm start', () => {
  it.each([
    [
      'no Electron binary',
      () => Promise.resolve({ DISPLAY: ':99', WARDEN_ELECTRON: join(dir, 'missing') }),
      'the Electron binary DIR/missing does not exist',
    ],
    [
      'no display',
      async () => ({ WARDEN_ELECTRON: await fakeElectron('exit 0') }),
      'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)',
    ],
    [
      'a binary that does not run here',
      async () => ({
        DISPLAY: ':99',
        WARDEN_ELECTRON: await fakeElectron(
          'echo "electron: error while loading shared libraries: libgtk-3.so.0" >&2; exit 127',
        ),
      }),
      'the Electron binary does not run here (electron: error while loading shared libraries: libgtk-3.so.0)',
    ],
  ])(
    'with %s: serves the control panel in the browser and says why in one line',
    async (_case, env, why) => {
      const { stderr, url } = await startUntilServing(baseEnv(await env()));
      expect(stderr.split('\n')[0]).toBe(
        `warden: ${why.replace('DIR', dir)}: serving the control panel in the browser instead`,
      );
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
    },
  );

  it('Ctrl+C stops the control panel cleanly: the state folder is free again', async () => {
    const env = baseEnv({});
    const started = spawn(
      process.execPath,
      [join(repo, 'scripts/start.mjs'), '--no-open', '--port', '0', '--gateway-port', '0'],
      { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let stdout = '';
    started.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await expect.poll(() => stdout, { timeout: 30_000 }).toContain('MCP gateway at');
    const run = join(dir, 'home', 'run');
    expect((await readdir(run)).sort()).toEqual(['control.sock', 'core.lock', 'core.sock', 'door']);
    // A terminal's Ctrl+C: SIGINT to every process of the group at once.
    process.kill(-started.pid!, 'SIGINT');
    expect(await new Promise((resolve) => started.once('exit', resolve))).toBe(0);
    await expect.poll(() => readdir(run), { timeout: 10_000 }).toEqual([]);
  });

  it('where Electron runs and there is a display, opens the desktop app with the arguments', async () => {
    const log = join(dir, 'args');
    const electron = await fakeElectron(
      `if [ "$1" = --version ]; then echo v39; exit 0; fi\necho "$@" > ${log}`,
    );
    const env = baseEnv({ DISPLAY: ':99', WARDEN_ELECTRON: electron });
    if (process.getuid?.() === 0) {
      // Chromium refuses to run as root without turning its sandbox off: the browser it is.
      const { stderr } = await startUntilServing(env);
      expect(stderr.split('\n')[0]).toBe(
        "warden: Electron's renderer sandbox does not run as root: serving the control panel in the browser instead",
      );
      return;
    }
    const started = spawn(process.execPath, [join(repo, 'scripts/start.mjs'), '--flag'], {
      cwd: repo,
      env,
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => started.once('exit', resolve))).toBe(0);
    expect((await readFile(log, 'utf8')).trim()).toBe('. --flag');
  });
});
