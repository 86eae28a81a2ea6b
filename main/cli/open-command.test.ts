/** `warden open` against a real `warden serve --no-token`: the browser is signed in by a file. */
import { request } from 'node:http';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../test/helpers/capture-io';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { runServeCommand } from '../web/serve-command';
import { runOpenCommand } from './open-command';

/**
 * Sends one request to 127.0.0.1 with the Host of `url` (Node does not resolve `*.localhost`,
 * browsers do); resolves with its status, Location, body and whether it set a cookie.
 */
function send(url: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const u = new URL(url);
  const options = {
    host: '127.0.0.1',
    port: u.port,
    path: u.pathname + u.search,
    method: init.method,
    headers: { Host: u.host, ...init.headers },
  };
  return (body?: string) =>
    new Promise<{ status: number; location?: string; cookie: boolean; body: string }>(
      (resolve, reject) => {
        request(options, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              cookie: res.headers['set-cookie'] !== undefined,
              body: text,
            }),
          );
        })
          .once('error', reject)
          .end(body);
      },
    );
}

let dir = '';
tempDirEach('warden-open-', (d) => (dir = d));
beforeEach(() => writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>'));

describe('warden open', () => {
  it('says so when no Warden runs for the state folder', async () => {
    const { io, out: printed } = captureIo();
    const status = await runOpenCommand(io, {
      wardenHome: join(dir, 'nobody'),
      openBrowser: () => undefined,
    });
    expect(status).toBe(1);
    expect(printed.stderr).toMatch(
      /no Warden is running for .*nobody: start the app or "warden serve"/,
    );
  });

  it('signs a browser in to a serve that printed no token, through a private one-time file', async () => {
    const home = join(dir, 'home');
    const served = captureIo();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runServeCommand(['--no-open', '--no-token', '--gateway-port', '0'], served.io, {
      staticDir: dir,
      env: { WARDEN_HOME: home },
      openBrowser: () => undefined,
      waitForStop: () => stopped,
    });
    // A whole core starts first: on a busy machine that takes longer than expect.poll's 1 s.
    await expect
      .poll(() => served.out.stdout, { timeout: 15_000 })
      .toContain('"warden open" signs your browser in');
    expect(served.out.stdout).not.toMatch(/Session token/);

    const { io, out: shown } = captureIo();
    const opened: string[] = [];
    expect(await runOpenCommand(io, { wardenHome: home, openBrowser: (u) => opened.push(u) })).toBe(
      0,
    );
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^file:\/\/.*\/run\/open-\d+\.html$/);
    const file = fileURLToPath(opened[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(shown.stdout).toContain(file);
    const html = await readFile(file, 'utf8');
    const url = /url=(http:\/\/[0-9a-f]{32}\.localhost:\d+\/login\?code=[\w-]{43})"/.exec(
      html,
    )?.[1];
    expect(url).toBeDefined();
    // The same code at the fallback address, for a browser that cannot reach the per-run one.
    const { host, port, search } = new URL(url!);
    expect(html).toContain(`"http://127.0.0.1:${port}/login${search}"`);
    expect(shown.stdout).toContain(`at http://${host}/ in your browser`);
    expect(shown.stdout).toContain(`(or at http://127.0.0.1:${port}/ if it cannot open that)`);
    // The link signs in once; the printed output never holds it.
    expect(shown.stdout).not.toContain(search);
    const code = new URL(url!).searchParams.get('code')!;
    expect(await send(url!)()).toEqual({
      status: 303,
      location: `/#code=${code}`,
      cookie: false,
      body: '',
    });
    const { origin } = new URL(url!);
    const traded = await send(`${origin}/session`, { method: 'POST', headers: { Origin: origin } })(
      JSON.stringify({ code }),
    );
    expect(traded.status).toBe(200);
    expect((JSON.parse(traded.body) as { session: string }).session).toMatch(/^[\w-]{43}$/);
    expect((await send(url!)()).status).toBe(401);

    stop();
    expect(await done).toBe(0);
  });
});
