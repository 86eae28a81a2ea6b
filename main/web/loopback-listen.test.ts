/**
 * The web server holds its port on 127.0.0.1 and on [::1], where browsers try `*.localhost`
 * first; a fixed port another program holds on [::1] is refused rather than shared with it.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reply } from '../../app/contract/reply';
import { tempDirEach } from '../../test/helpers/temp-dir';
import { listenLoopback } from './loopback-listen';
import { type WebServer, startWebServer } from './web-server';

const core = {
  handle: (): Promise<Reply> => Promise.resolve({ ok: true, value: null }),
  subscribe: () => () => undefined,
};

/** True when this machine has an IPv6 loopback address to bind. */
async function hasV6(): Promise<boolean> {
  const probe = createServer();
  return new Promise((done) => {
    probe.once('error', () => done(false));
    probe.listen(0, '::1', () => probe.close(() => done(true)));
  });
}

/** GET / on `host`:`port` with the Host header `hostHeader`; the status. */
function status(host: string, port: number, hostHeader: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host, port, path: '/', headers: { Host: hostHeader } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .once('error', reject)
      .end();
  });
}

let dir = '';
let web: WebServer | undefined;
tempDirEach('warden-loopback-', (d) => (dir = d));
afterEach(async () => {
  await web?.close();
  web = undefined;
});

describe.skipIf(!(await hasV6()))('listenLoopback', () => {
  it('serves the per-run name on [::1] too, as browsers reach it first', async () => {
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Warden</title>');
    web = await startWebServer({ core, staticDir: dir });
    const host = new URL(web.url).host;
    expect(await status('::1', web.port, host)).toBe(200);
    expect(await status('127.0.0.1', web.port, host)).toBe(200);
    expect(await status('::1', web.port, `[::1]:${web.port}`)).toBe(421);
  });

  it('refuses a fixed port that another program holds on [::1], and frees 127.0.0.1', async () => {
    const squatter = createServer();
    await new Promise<void>((done) => squatter.listen(0, '::1', done));
    const port = (squatter.address() as AddressInfo).port;
    try {
      await expect(startWebServer({ core, staticDir: dir, port })).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
      const v4 = createServer();
      const v6 = createServer();
      await expect(listenLoopback(v4, v6, port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(v4.listening).toBe(false);
    } finally {
      await new Promise((done) => squatter.close(done));
    }
  });
});
