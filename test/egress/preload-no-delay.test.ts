/**
 * The fetch preload's tunnels send every write as it is made (TCP_NODELAY), as Node's own agents
 * and undici do on a direct connection: with Nagle's algorithm on, a request written in parts
 * (a head, then a body) waited for the proxy's delayed acknowledgement of the first. Node offers
 * no getsockopt, so the server process watches the option being set on its sockets' handles.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { bundleEgress } from './egress-harness';
import { startTestProxy } from './test-proxy';

// Run with the preload: watches which TCP handles are told to send at once (by the port of their
// peer), then asks the target through http.request and through fetch.
const serverScript = `
const net = require('node:net');
const http = require('node:http');
const probe = net.connect(Number(process.env.TARGET_PORT), '127.0.0.1');
probe.on('connect', async () => {
  const proto = Object.getPrototypeOf(probe._handle);
  probe.destroy();
  const noDelay = [];
  const original = proto.setNoDelay;
  proto.setNoDelay = function (on) {
    const peer = {};
    this.getpeername(peer);
    if (on) noDelay.push(peer.port);
    return original.call(this, on);
  };
  const url = 'http://target.test:' + process.env.TARGET_PORT + '/';
  const viaHttp = await new Promise((done, fail) =>
    http.get(url, (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => done(b)); }).on('error', fail));
  const proxied = noDelay.filter((p) => p === Number(process.env.PROXY_PORT)).length;
  const viaFetch = await (await fetch(url)).text();
  const proxiedAfter = noDelay.filter((p) => p === Number(process.env.PROXY_PORT)).length;
  console.log(JSON.stringify({ viaHttp, viaFetch, http: proxied, fetch: proxiedAfter - proxied }));
});
`;

it('the preload’s tunnels to the proxy have Nagle’s algorithm off, for http and for fetch', async () => {
  const { dir, runtime } = await bundleEgress();
  const target = http.createServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const targetPort = (target.address() as AddressInfo).port;
  const proxy = await startTestProxy();
  const script = join(dir, 'no-delay-server.cjs');
  await writeFile(script, serverScript);
  try {
    const child = spawn(process.execPath, ['--require', runtime.preloadScript, script], {
      env: {
        PATH: process.env.PATH,
        HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
        TARGET_PORT: String(targetPort),
        PROXY_PORT: String(proxy.port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.once('close', r));
    expect(code, err).toBe(0);
    const got = JSON.parse(out) as Record<string, unknown>;
    // Both went through the proxy, each on a tunnel told to send at once.
    expect(got).toEqual({ viaHttp: 'hello', viaFetch: 'hello', http: 1, fetch: 1 });
    expect(proxy.dialed).toEqual(['target.test', 'target.test']);
  } finally {
    proxy.close();
    target.close();
  }
});
